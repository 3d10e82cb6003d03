"""Tektronix CSV, every layout the scopes save, parsed by charz (pure, text in, records out).

Two layouts exist (the scopes' user manuals, "Save Waveform … CSV", and public files):

*six-column* — TDS1000/TDS2000 (B/C), TBS1000/TBS1000B, TPS2000: each row is
``label,value,,time,sample,``; the header rides in the first two columns of the first
18 or so rows, the samples in columns four and five of every row::

    Record Length,2.500000e+03,,-0.0010000,0.0800,
    Sample Interval,8.000000e-07,,-0.0009992,0.0800,
    Trigger Point,1.250000000000e+03,,-0.0009984,0.0840,
    ...
    Source,CH1,,...
    Vertical Units,V,,...
    Pt Fmt,Y,,...               (ENV: peak detect)
    Model Number,TDS2024B,,...

*header block* — DPO/MSO 2000/3000/4000, MSO 4/5/6, TBS1000C, TBS2000 (and tm_data_types'
own writer): ``key,value[,value…]`` rows (``Model``, ``Waveform Type``, ``Point Format``,
``Sample Interval``, ``Record Length``, ``Vertical Units``, …, blank ``,`` rows between
groups), then the column titles ``TIME,CH1[,CH2,MATH1…]`` and one row per sample, one
column per saved channel.

Every analog column becomes a record; a ``DIGITAL`` or ``IQ`` waveform type is refused.
"""

from __future__ import annotations

import re

import numpy as np

from charz.importer._waveform import Waveform, is_math_source, unit_symbol

_NUM = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def _is_num(s: str) -> bool:
    return bool(_NUM.match(s))


def is_tek_csv(head: str) -> bool:
    """True when the first lines ``head`` are a Tek CSV's (either layout)."""
    return any(k in head for k in ("Record Length", "Sample Interval", "Model,", "Waveform Type"))


def _time_axis(t: np.ndarray, interval: float | None) -> tuple[float, float]:
    if t.size < 2:
        raise ValueError("fewer than two samples")
    if not np.all(np.diff(t) > 0):
        raise ValueError("the time column does not increase")
    step = float((t[-1] - t[0]) / (t.size - 1))
    # The header's interval is the scope's own number; the printed times are rounded.
    if interval and abs(interval - step) <= 1e-3 * step:
        step = interval
    return step, float(t[0])


def _six_column(rows: list[list[str]]) -> list[Waveform]:
    head = {r[0].strip(): r[1].strip() for r in rows if len(r) > 1 and r[0].strip()}
    body = [r for r in rows if len(r) >= 5 and _is_num(r[3]) and _is_num(r[4])]
    t = np.array([float(r[3]) for r in body])
    v = np.array([float(r[4]) for r in body])
    if "Record Length" in head and _is_num(head["Record Length"]) and int(float(head["Record Length"])) != v.size:
        raise ValueError(f"Record Length {head['Record Length']} but {v.size} sample rows")
    interval = float(head["Sample Interval"]) if _is_num(head.get("Sample Interval", "")) else None
    dt, t0 = _time_axis(t, interval)
    source = head.get("Source", "CH1") or "CH1"
    return [Waveform(sample_interval_s=dt, t_first_s=t0, unit=unit_symbol(head.get("Vertical Units", "V")) or "V",
                     source=source, values=v, mode="envelope" if head.get("Pt Fmt", "Y").upper().startswith("ENV") else "sample",
                     math=is_math_source(source), model=head.get("Model Number", ""))]


def _header_block(rows: list[list[str]]) -> list[Waveform]:
    titles_at = next((i for i, r in enumerate(rows) if r and r[0].strip().upper() == "TIME"), None)
    if titles_at is None:
        raise ValueError("no 'TIME,CH1…' row before the samples")
    head: dict[str, list[str]] = {}
    for r in rows[:titles_at]:
        if r and r[0].strip():
            head[r[0].strip().lower()] = [c.strip() for c in r[1:]]
    kind = (head.get("waveform type") or ["ANALOG"])[0].upper()
    if kind and kind != "ANALOG":
        raise ValueError(f"a {kind} waveform, not an analog one: charz reads a current probe's samples")
    titles = [c.strip() for c in rows[titles_at]]
    while titles and not titles[-1]:
        titles.pop()
    if len(titles) < 2:
        raise ValueError("the 'TIME' row names no channel")
    body = [r for r in rows[titles_at + 1:] if r and r[0].strip()]
    try:
        table = np.array([[float(c) for c in r[:len(titles)]] for r in body])
    except ValueError:
        raise ValueError("a sample row holds something other than numbers") from None
    if table.ndim != 2 or table.shape[1] != len(titles):
        raise ValueError(f"sample rows do not all have {len(titles)} columns ({', '.join(titles)})")
    interval = head.get("sample interval", [""])[0]
    dt, t0 = _time_axis(table[:, 0], float(interval) if _is_num(interval) else None)
    points = head.get("record length", [""])[0]
    if _is_num(points) and int(float(points)) != table.shape[0]:
        raise ValueError(f"Record Length {points} but {table.shape[0]} sample rows")

    def per_column(key: str, j: int, default: str) -> str:
        vals = head.get(key) or []
        vals = [v for v in vals if v] or [default]
        return vals[j] if j < len(vals) else vals[0]

    model = (head.get("model") or [""])[0]
    out = []
    for j, name in enumerate(titles[1:]):
        fmt = per_column("point format", j, "Y").upper()
        out.append(Waveform(sample_interval_s=dt, t_first_s=t0,
                            unit=unit_symbol(per_column("vertical units", j, "V")) or "V",
                            source=name, values=table[:, j + 1], mode="sample" if fmt == "Y" else "envelope",
                            math=is_math_source(name), model=model))
    return out


def parse_tek_csv(text: str) -> list[Waveform]:
    """Every channel saved in a Tek CSV ``text``; ``ValueError`` saying what is wrong otherwise."""
    rows = [line.split(",") for line in text.replace("\r", "").split("\n")]
    first = next((r for r in rows if any(c.strip() for c in r)), [])
    if first and first[0].strip() == "Record Length" and len(first) >= 5:
        return _six_column(rows)
    return _header_block(rows)
