"""000 Table 3's micro-benchmarks: their request sizes and their names.

Shared by the fio job files' reader (``charz.wa._jobs``) and the simulated
drive's request streams (``charz.sim.ftl``), so a bench run and a mock run name
the same benchmark the same way.
"""

from __future__ import annotations

__all__ = ["TABLE3_SIZES", "table3_label"]

TABLE3_SIZES = (512, 4096, 8192, 16384, 32768)


def table3_label(block_size: int, random: bool, write_fraction: float, aligned: bool) -> str:
    """000 Table 3's name of a micro-benchmark.

    >>> table3_label(4096, True, 1.0, True)
    '4K-RD-100%-W-4KiB-align'
    >>> table3_label(512, False, 0.5, False)
    '512B-SQ-50%-W-4KiB-no-align'
    """
    size = f"{block_size // 1024}K" if block_size % 1024 == 0 else f"{block_size}B"
    return (f"{size}-{'RD' if random else 'SQ'}-{round(write_fraction * 100)}%-W-"
            f"4KiB-{'align' if aligned else 'no-align'}")
