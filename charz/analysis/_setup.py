"""Bench and drive set-up problems that spoil a characterization (003 §5.1.2, §5.5).

Each check looks at per-capture measurements and returns a warning with what
to do, or nothing:

* **idle peaks** — periodic housekeeping bursts of a drive that is not in
  standby (X-25M: 240 mA every 50 ms, Fig. 6a); as tall as a small write's
  steps, they must go: ``hdparm -y`` before measuring;
* **write cache on** — writes end in DRAM, no program phase inside the window
  (Fig. 7a): every write is shorter than any NAND program;
* **standby tail** — the drive keeps drawing current for seconds after each
  request (MXP: 80 mA for about 5 s, §5.5), so back-to-back captures start
  from the tail, not from idle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# No NAND page programs in less than ~200 µs (SLC); a write shorter than this never reached flash.
WRITE_CACHE_MAX_US = 150.0
TAIL_MIN_A = 0.005  # a tail must lift the level by at least this much ...
TAIL_SHARE = 0.8  # ... in this share of the captures


@dataclass(frozen=True)
class SetupWarning:
    kind: str  # "idle-peaks" | "write-cache" | "standby-tail"
    message: str
    advice: str

    def text(self) -> str:
        return f"{self.message} — {self.advice}"


def check_idle_peaks(idle_peak_a: np.ndarray, idle_time_s: np.ndarray, level_noise_a: np.ndarray) -> SetupWarning | None:
    """Periodic bursts in the idle parts of the records.

    ``level_noise_a`` is the σ of the averaged levels the peak heights were measured on
    (block means), not of one sample.

    Example
    -------
    >>> check_idle_peaks(np.array([0.17, 0, 0.16, 0, 0.17]), np.full(5, 0.018), np.full(5, 0.0007)).kind
    'idle-peaks'
    """
    peaks = np.asarray(idle_peak_a, dtype=np.float64)
    real = peaks > np.maximum(10 * np.asarray(level_noise_a), 0.01)
    n = int(np.count_nonzero(real))
    if n < 2:
        return None
    seen_s = float(np.sum(idle_time_s))
    every_ms = seen_s / n * 1e3
    return SetupWarning(
        "idle-peaks",
        f"idle peaks: {n} bursts in {seen_s:.2f} s of idle record (about one every {every_ms:.0f} ms), "
        f"up to {peaks.max() * 1e3:.0f} mA above idle",
        "put the drive in standby before measuring (hdparm -y; 003 §5.1.2): they are as tall as a small write's steps",
    )


def check_write_cache(write_size_bytes: np.ndarray, write_duration_s: np.ndarray) -> SetupWarning | None:
    """The smallest writes end too soon to have programmed a page.

    Larger cached writes last as long as the host transfer, so only the smallest size
    tells: on flash it takes at least one program time.

    Example
    -------
    >>> check_write_cache(np.array([4096, 8192, 81920]), np.array([60e-6, 70e-6, 300e-6])).kind
    'write-cache'
    >>> check_write_cache(np.array([4096, 8192]), np.array([1.0e-3, 1.2e-3])) is None
    True
    """
    sizes = np.asarray(write_size_bytes)
    d = np.asarray(write_duration_s, dtype=np.float64)
    ok = np.isfinite(d)
    if not ok.any():
        return None
    smallest = sizes[ok] == sizes[ok].min()
    shortest = float(np.median(d[ok][smallest]))
    if shortest * 1e6 >= WRITE_CACHE_MAX_US:
        return None
    return SetupWarning(
        "write-cache",
        f"{int(sizes[ok].min())} B writes end after {shortest * 1e6:.0f} µs, shorter than any NAND program: "
        "no program phase inside the window (003 Fig. 7a)",
        "turn the drive's write cache off (hdparm -W0; NVMe: nvme set-feature -f 0x06 --value=0) and measure again",
    )


def check_standby_tail(baseline_a: np.ndarray, post_a: np.ndarray, level_noise_a: np.ndarray) -> SetupWarning | None:
    """The record ends above the idle level it started from, capture after capture.

    ``level_noise_a``: σ of the averaged levels compared (block means), not of one sample.

    Example
    -------
    >>> check_standby_tail(np.full(10, 0.015), np.full(10, 0.08), np.full(10, 0.0006)).kind
    'standby-tail'
    """
    lift = np.asarray(post_a) - np.asarray(baseline_a)
    high = lift > np.maximum(TAIL_MIN_A, 5 * np.asarray(level_noise_a))
    if high.size == 0 or np.mean(high) < TAIL_SHARE:
        return None
    return SetupWarning(
        "standby-tail",
        f"after each request the drive stays {np.median(lift[high]) * 1e3:.0f} mA above its idle level to the end of "
        "the record (a standby tail, like the MXP's 80 mA for ~5 s in 003 §5.5)",
        "captures still measure steps and durations against the level just before each request; "
        "for energy or idle figures, space requests by longer than the tail",
    )
