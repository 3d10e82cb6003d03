"""Byte sizes as people and tools write them, and the integer arithmetic of alignment.

Binary prefixes throughout (k = KiB), as 003's "4 KB" pages are 4096 bytes and as
mkfs.xfs, mdadm, pvcreate and parted read their suffixes.
"""

from __future__ import annotations

import math

KiB = 1024
MiB = 1024 * KiB


def is_pow2(n: int) -> bool:
    """``True`` for 1, 2, 4, ...

    >>> is_pow2(32768), is_pow2(98304), is_pow2(0)
    (True, False, False)
    """
    return n > 0 and n & (n - 1) == 0


def next_pow2(n: int) -> int:
    """The smallest power of two ≥ ``n`` (``n`` ≥ 1).

    >>> next_pow2(32768), next_pow2(98304), next_pow2(1)
    (32768, 131072, 1)
    """
    if n < 1:
        raise ValueError(f"next_pow2 needs n >= 1, got {n}")
    return 1 << (n - 1).bit_length()


def lcm(a: int, b: int) -> int:
    """Least common multiple.

    >>> lcm(MiB, 128 * KiB) == MiB, lcm(MiB, 96 * KiB) // MiB
    (True, 3)
    """
    return a * b // math.gcd(a, b)


def human(n: int) -> str:
    """A size for reading: whole KiB/MiB when exact, bytes otherwise.

    >>> human(32768), human(1048576), human(4096), human(1536), human(512)
    ('32 KiB', '1 MiB', '4 KiB', '1536 B', '512 B')
    """
    for unit, scale in (("GiB", 1 << 30), ("MiB", MiB), ("KiB", KiB)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def suffixed(n: int, *, upper: bool = False) -> str:
    """A size as a tool argument: ``32k``, ``1m``, or plain bytes when not a whole KiB.

    >>> suffixed(32768), suffixed(32768, upper=True), suffixed(2 * MiB), suffixed(1536)
    ('32k', '32K', '2m', '1536')
    """
    for suffix, scale in (("g", 1 << 30), ("m", MiB), ("k", KiB)):
        if n >= scale and n % scale == 0:
            text = f"{n // scale}{suffix}"
            return text.upper() if upper else text
    return str(n)
