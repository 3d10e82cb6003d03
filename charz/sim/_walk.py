"""The simulated firmware's package order, written out as the firmware would loop.

Deliberately independent of ``charz.analysis._latency``: the analysis enumerates
hypotheses about this order, the simulator holds the truth, and tests compare
the two.  A block of ``block_channels × block_ways`` packages is filled in
``order``; blocks tile the grid across channels first, then ways, then wrap.
"""

from __future__ import annotations


def package_walk(channels: int, ways: int, block_channels: int, block_ways: int, order: str, n: int) -> list[tuple[int, int]]:
    """The first ``n`` (channel, way) pairs the firmware programs, in order.

    Example
    -------
    >>> package_walk(2, 2, 2, 2, "way-priority", 5)
    [(0, 0), (0, 1), (1, 0), (1, 1), (0, 0)]
    """
    one_cycle: list[tuple[int, int]] = []
    for way_block in range(ways // block_ways):
        for ch_block in range(channels // block_channels):
            if order == "channel-priority":
                cells = [(c, w) for w in range(block_ways) for c in range(block_channels)]
            else:
                cells = [(c, w) for c in range(block_channels) for w in range(block_ways)]
            for c, w in cells:
                one_cycle.append((ch_block * block_channels + c, way_block * block_ways + w))
    return [one_cycle[i % len(one_cycle)] for i in range(n)]
