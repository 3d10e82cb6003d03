"""The validation as text: a table per record size, 003 Table 4's ratios, the notes. Pure."""

from __future__ import annotations

from charz.validate._compare import format_change
from charz.validate._result import ValidationResult
from charz.validate._rows import ValidationRow

__all__ = ["format_table", "format_size"]


def format_size(n_bytes: int) -> str:
    """Binary units, exact or in bytes: ``4 KiB``, ``128 MiB``, ``12800 B``.

    >>> format_size(4096), format_size(128 * 2**20), format_size(12800)
    ('4 KiB', '128 MiB', '12800 B')
    """
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n_bytes >= size and n_bytes % size == 0:
            return f"{n_bytes // size} {unit}"
    return f"{n_bytes} B"


def _verdict(aligned: bool | None) -> str:
    return {True: "yes", False: "no", None: "?"}[aligned]


def _current(row: ValidationRow) -> str:
    if row.mean_current_a is None:
        return "not measured"
    text = f"{row.mean_current_a:.4f}"
    if row.current_sem_a is not None:
        text += f" ±{row.current_sem_a:.4f} ({row.current_records})"
    return text


def _j_per_mb(row: ValidationRow) -> str:
    value = row.j_per_mb
    return "-" if value is None else f"{value:.4f}"


def format_table(result: ValidationResult) -> str:
    """The report ``charz validate`` prints.

    Example
    -------
    >>> from charz.validate._result import RailVoltage, build_result
    >>> from charz.validate._unit import MeasuredUnit
    >>> rows = [ValidationRow(s, s % 32768 == 0, 2**27, t, a, 5.0, "model", 2**27 // s, 100, 1e3)
    ...         for s, t, a in ((4096, 60.0, 0.2), (32768, 20.0, 0.3))]
    >>> r = build_result(mode="mock", drive="preset qpro (simulated)", preset="qpro", file_size_bytes=2**27,
    ...                  rows=rows, unit=MeasuredUnit(32768, "from a test"), rail=RailVoltage.from_option(None),
    ...                  fio_version="fio-3.33", jobfile="workloads/recsize-one.fio", notes=[])
    >>> print(format_table(r))   # doctest: +NORMALIZE_WHITESPACE
    charz validate: 003 §6 record-size sweep, direct sequential QD1 writes of 128 MiB per record size
    drive:  preset qpro (simulated)
    source: model (the simulated SSD's timing model; fio ran for real on a scratch file)
    unit:   from a test
    rail:   5 V (assumed: 5 V SATA rail, as 003 multiplies by 5 V)
    <BLANKLINE>
     record  aligned      MB/s  mean current A     J/MB  source
      4 KiB  no           2.24          0.2000   0.4470  model
     32 KiB  yes          6.71          0.3000   0.2235  model
    <BLANKLINE>
    aligned (32 KiB) vs 4 KiB: +200 % MB/s, −50 % energy   [model]
    003 Table 4, qpro (measured on the real drive): +201 % MB/s, −85 % energy
    notes (MB = 10^6 B):
      - every MB/s, current and energy figure is 'model': the simulated SSD's timing and current model, not a measurement
      - rail voltage 5 V (assumed: 5 V SATA rail, as 003 multiplies by 5 V)
      - from a test
    """
    how = ("the simulated SSD's timing model; fio ran for real on a scratch file" if result.source == "model"
           else "fio on the device, mean current from the scope")
    lines = [
        "charz validate: 003 §6 record-size sweep, direct sequential QD1 writes of "
        f"{format_size(result.file_size_bytes)} per record size",
        f"drive:  {result.drive}",
        f"source: {result.source} ({how})",
        f"unit:   {result.unit.cite}",
        f"rail:   {result.rail.volts:g} V ({result.rail.origin})",
        "",
    ]
    header = ("record", "aligned", "MB/s", "mean current A", "J/MB", "source")
    cells = [(format_size(r.record_size_bytes), _verdict(r.aligned), f"{r.mb_per_s:.2f}", _current(r), _j_per_mb(r),
              r.source) for r in result.rows]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]
    for c in [header, *cells]:
        lines.append(f"{c[0]:>{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:>{widths[2]}}  {c[3]:>{widths[3]}}  "
                     f"{c[4]:>{widths[4]}}  {c[5]}")
    lines.append("")
    c = result.comparison
    if c.mb_per_s_change_pct is not None and c.energy_change_pct is not None:
        lines.append(f"aligned ({format_size(c.aligned_bytes or 0)}) vs {format_size(c.baseline_bytes)}: "
                     f"{format_change(c.mb_per_s_change_pct, c.energy_change_pct)}   [{result.source}]")
    else:
        lines.append(f"aligned vs {format_size(c.baseline_bytes)}: not computed ({c.reason})")
    if result.reference is not None:
        mb, energy = result.reference
        lines.append(f"003 Table 4, {result.preset} (measured on the real drive): {format_change(mb, energy)}")
    lines.append("notes (MB = 10^6 B):")
    lines += [f"  - {note}" for note in result.notes]
    return "\n".join(lines)
