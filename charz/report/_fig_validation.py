"""Figure 5: throughput and energy per record size, aligned to the I/O unit or not (003 Fig. 18, Table 4)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from matplotlib.figure import Figure

from charz.report._numbers import size_label
from charz.report._style import new_figure, note_axes

__all__ = ["validation_figure"]

_GROUPS = (
    (True, "aligned to the I/O unit", "#55a868"),
    (False, "not aligned", "#a0a0a0"),
    (None, "alignment not stated", "#8172b2"),
)


def _arg_rows(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    good = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or not isinstance(row.get("record_size_bytes"), (int, float)):
            raise ValueError(f"validation row {i} has no record_size_bytes: {row!r}")
        good.append(row)
    return good


def _bars(ax, rows, key: str, sizes: list[float]) -> bool:
    """Bars of ``key`` per record size, side by side only where a size has rows of both alignments.

    Returns False if no row has a number for ``key``.
    """
    present = {}  # record size → groups with a number there, in _GROUPS order
    for flag, _, _ in _GROUPS:
        for r in rows:
            if r.get("aligned") is flag and isinstance(r.get(key), (int, float)):
                present.setdefault(float(r["record_size_bytes"]), [])
                if flag not in present[float(r["record_size_bytes"])]:
                    present[float(r["record_size_bytes"])].append(flag)
    drawn = False
    for flag, label, colour in _GROUPS:
        x, y = [], []
        for r in rows:
            value = r.get(key)
            if r.get("aligned") is flag and isinstance(value, (int, float)):
                size = float(r["record_size_bytes"])
                groups = present[size]
                width = 0.8 / len(groups)
                x.append(sizes.index(size) + (groups.index(flag) - (len(groups) - 1) / 2) * width)
                y.append(float(value))
        if x:
            bars = ax.bar(x, y, width=0.8 / max(len(g) for g in present.values()) * 0.95, color=colour, label=label)
            ax.bar_label(bars, fmt="%.3g", fontsize=7.5, padding=2)
            drawn = True
    ax.set_xticks(range(len(sizes)), [size_label(s) for s in sizes])
    ax.set_xlabel("record size")
    ax.grid(True, axis="y", alpha=0.25)
    ax.margins(y=0.12)  # room for the value labels
    return drawn


def validation_figure(rows: Sequence[Mapping[str, Any]]) -> Figure:
    """MB/s and J/MB per record size, bars grouped by alignment to the measured I/O unit.

    Parameters
    ----------
    rows : sequence of mapping
        The profile's ``validation`` rows: ``record_size_bytes``, ``mb_per_s``,
        ``j_per_mb`` (may be missing: no rail voltage, no energy) and ``aligned``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> rows = [{"record_size_bytes": 4096, "mb_per_s": 20.0, "j_per_mb": 0.5, "aligned": False},
    ...         {"record_size_bytes": 32768, "mb_per_s": 60.0, "j_per_mb": 0.2, "aligned": True}]
    >>> [ax.get_ylabel() for ax in validation_figure(rows).axes]
    ['throughput (MB/s)', 'energy (J/MB)']
    """
    rows = _arg_rows(rows)
    sizes = sorted({float(r["record_size_bytes"]) for r in rows})
    fig = new_figure(9.0, 4.2)
    speed, energy = fig.subplots(1, 2)
    if not rows:
        note_axes(speed, "no validation rows")
        note_axes(energy, "no validation rows")
        return fig
    if _bars(speed, rows, "mb_per_s", sizes):
        speed.legend(fontsize=8, loc="upper left")
    else:
        note_axes(speed, "no throughput in the validation rows")
    speed.set_ylabel("throughput (MB/s)")
    if not _bars(energy, rows, "j_per_mb", sizes):
        note_axes(energy, "no energy in the validation rows\n(the rail voltage was not known)")
    energy.set_ylabel("energy (J/MB)")
    sources = {r.get("source") for r in rows}
    origin = " — simulated model, not a measurement" if sources == {"model"} else ""
    speed.set_title("higher is better", fontsize=9, loc="left", color="0.35")
    energy.set_title("lower is better", fontsize=9, loc="left", color="0.35")
    fig.suptitle(f"sequential O_DIRECT writes per record size{origin}", fontsize=10, x=0.01, ha="left")
    return fig
