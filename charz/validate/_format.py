"""The validation as text: a table per record size, 003 Table 4's ratios, the notes. Pure."""

from __future__ import annotations

from charz._text import fold, significant
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
    text = f"{significant(row.mean_current_a * 1e3, 4, zeros=True)}"
    if row.current_sem_a is not None:
        text += f" ±{significant(row.current_sem_a * 1e3, 2)}"
    return text + " mA" + (f" ({row.current_records})" if row.current_sem_a is not None else "")


def _j_per_mb(row: ValidationRow) -> str:
    value = row.j_per_mb
    return "-" if value is None else significant(value, 3, zeros=True)


def _table(result: ValidationResult) -> list[str]:
    """Rows of the drive's figures (model or measured) beside fio's own for the same run."""
    drive = "simulated drive (model)" if result.source == "model" else "the drive (measured)"
    fio = "fio on the scratch file" if result.source == "model" else "fio's own report"
    header = ("record", "aligned", "MB/s", "mean current", "J/MB", "MB/s", "runtime")
    cells = [(format_size(r.record_size_bytes), _verdict(r.aligned), significant(r.mb_per_s, 3, zeros=True), _current(r),
              _j_per_mb(r), significant(r.fio_mb_per_s, 3, zeros=True), f"{r.fio_runtime_ms} ms") for r in result.rows]
    w = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]

    def line(c) -> str:
        return (f"{c[0]:>{w[0]}}  {c[1]:<{w[1]}}  {c[2]:>{w[2]}}  {c[3]:>{w[3]}}  {c[4]:>{w[4]}}    "
                f"{c[5]:>{w[5]}}  {c[6]:>{w[6]}}").rstrip()

    left = w[0] + w[1] + 4  # the drive's columns start after record and aligned
    span = w[2] + w[3] + w[4] + 4
    over = " " * left + f"{drive:<{span}}    {fio}"
    return [over.rstrip(), line(header), *(line(c) for c in cells)]


def format_table(result: ValidationResult) -> str:
    """The report ``charz validate`` prints, in lines of ≤ 80 columns (paths stay whole).

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
    charz validate: 003 §6 record-size sweep, direct sequential QD1 writes of
      128 MiB per record size
    drive:  preset qpro (simulated)
    source: model (the simulated SSD's timing model; fio ran for real on a
            scratch file)
    unit:   from a test
    rail:   5 V (assumed: 5 V SATA rail, as 003 multiplies by 5 V)
    <BLANKLINE>
                     simulated drive (model)      fio on the scratch file
    record  aligned  MB/s  mean current   J/MB    MB/s  runtime
     4 KiB  no       2.24      200.0 mA  0.447    1000   100 ms
    32 KiB  yes      6.71      300.0 mA  0.224    1000   100 ms
    <BLANKLINE>
    aligned (32 KiB) vs 4 KiB: +200 % MB/s, −50 % energy   [model]
    003 Table 4, qpro (measured on the real drive): +201 % MB/s, −85 % energy
    notes (MB = 10^6 B):
      - every MB/s, current and energy figure is 'model': the simulated SSD's
        timing and current model, not a measurement
    """
    how = ("the simulated SSD's timing model; fio ran for real on a scratch file" if result.source == "model"
           else "fio on the device, mean current from the scope")
    lines = [
        fold("charz validate: 003 §6 record-size sweep, direct sequential QD1 writes of "
             f"{format_size(result.file_size_bytes)} per record size", rest="  "),
        fold(result.drive, first="drive:  "),
        fold(f"{result.source} ({how})", first="source: "),
        fold(result.unit.cite, first="unit:   "),
        fold(f"{result.rail.volts:g} V ({result.rail.origin})", first="rail:   "),
        "",
        *_table(result),
        "",
    ]
    c = result.comparison
    if c.mb_per_s_change_pct is not None and c.energy_change_pct is not None:
        lines.append(f"aligned ({format_size(c.aligned_bytes or 0)}) vs {format_size(c.baseline_bytes)}: "
                     f"{format_change(c.mb_per_s_change_pct, c.energy_change_pct)}   [{result.source}]")
    else:
        lines.append(fold(f"aligned vs {format_size(c.baseline_bytes)}: not computed ({c.reason})", rest="  "))
    if result.reference is not None:
        mb, energy = result.reference
        lines.append(fold(f"003 Table 4, {result.preset} (measured on the real drive): {format_change(mb, energy)}",
                          rest="  "))
    gap = result.gap_to_paper
    if gap:
        lines.append(fold(gap, rest="  "))
    lines.append("notes (MB = 10^6 B):")
    # the unit, the rail and why no ratio was computed are printed above already
    above = {result.unit.cite, f"rail voltage {result.rail.volts:g} V ({result.rail.origin})",
             f"aligned vs 4 KiB: {c.reason}"}
    lines += [fold(note, first="  - ") for note in result.notes if note not in above]
    return "\n".join(lines)
