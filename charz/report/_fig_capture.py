"""One capture as the scope saw it (``charz show``): raw current, its smoothed trace, the clip limits."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from charz.archive import Capture
from charz.report._style import DOTS, FIT, MEASURED, new_figure, time_axis

__all__ = ["capture_figure", "capture_summary"]

_W = 20   # the analysis's peak window: what "the peak" is measured on


def _smooth(t: np.ndarray, x: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Full windows only (no made-up zeros past the ends), each at its window's centre."""
    if x.size < w:
        return t, x
    return t[w // 2: w // 2 + x.size - w + 1], np.convolve(x, np.ones(w) / w, mode="valid")


def capture_figure(cap: Capture, channel: str = "current") -> Figure:
    """Every sample of one channel (light) and its w = 20 moving average (dark), against time.

    Examples
    --------
    >>> from charz.archive import Channel
    >>> from charz.waveform import Waveform
    >>> w = Waveform(np.arange(100, dtype=np.int8), 0.001, 0, 0.0, 1e-6, -1e-5, unit="A", source="CH1",
    ...              code_min=-128, code_max=127)
    >>> cap = Capture(step=0, op="write", size_bytes=4096, offset_bytes=0, repeat=0,
    ...               time_reference="trigger", channels=[Channel("current", w)])
    >>> capture_figure(cap).axes[0].get_xlabel()
    'time from the trigger (µs)'
    """
    w = cap.channel(channel).waveform
    y = w.values()
    t_us = cap.time_s() * 1e6
    scale, unit = (1e3, "mA") if w.unit == "A" else (1.0, w.unit)
    fig = new_figure(8.5, 4.5)
    ax = fig.add_subplot()
    ax.plot(t_us, y * scale, color=DOTS, lw=0.5, alpha=0.45, label="samples")
    ts, ys = _smooth(t_us, y, _W)
    ax.plot(ts, ys * scale, color=MEASURED, lw=1.2, label=f"{_W}-sample moving average")
    for code, name in ((w.code_min, "ADC minimum"), (w.code_max, "ADC maximum")):
        level = ((code - w.y_offset_codes) * w.y_mult + w.y_zero) * scale
        if y.min() * scale - 0.1 * np.ptp(y * scale) <= level <= y.max() * scale + 0.1 * np.ptp(y * scale):
            ax.axhline(level, color=FIT, ls=":", lw=1.0, label=f"{name} (clipped)")
    time_axis(ax, cap.time_reference)
    ax.set_ylabel(f"{channel} ({unit})")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(f"capture {cap.index}: {cap.op} {_size(cap.size_bytes)}, repeat {cap.repeat}", fontsize=10, loc="left")
    return fig


def _size(n: int) -> str:
    return f"{n // 1024} KiB" if n >= 1024 and n % 1024 == 0 else f"{n} B"


def capture_summary(cap: Capture, channel: str = "current") -> str:
    """A few lines for the terminal: what the capture is and what its samples span."""
    w = cap.channel(channel).waveform
    y = w.values()
    n = y.size
    scale, unit = (1e3, "mA") if w.unit == "A" else (1.0, w.unit)
    lines = [
        f"capture {cap.index}: {cap.op} {_size(cap.size_bytes)} at offset {cap.offset_bytes} B, "
        f"repeat {cap.repeat}, step {cap.step}",
        f"  {n} sample{'s' if n != 1 else ''} every {cap.sample_interval_s * 1e6:.4g} µs "
        f"({n * cap.sample_interval_s * 1e3:.4g} ms)",
        f"  t = 0 at the {cap.time_reference}, first sample at {cap.t_first_sample_s * 1e6:.4g} µs",
        f"  {channel} from {w.source}: min {y.min() * scale:.4g}, median {np.median(y) * scale:.4g}, "
        f"max {y.max() * scale:.4g} {unit}",
    ]
    clipped = int(np.count_nonzero((w.codes <= w.code_min) | (w.codes >= w.code_max)))
    if clipped:
        lines.append(f"  {clipped} sample{'s' if clipped != 1 else ''} at the ADC's limit (clipped)")
    lines += [f"  warning: {w}" for w in cap.warnings]
    return "\n".join(lines)
