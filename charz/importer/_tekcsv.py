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

An MDO saving analog and digital channels together puts one such group per kind side by
side (``TIME,CH1,,TIME,D11,…,D0``, each group's header keys in its own TIME column, as in
a public MDO3014 file).  Every column becomes a record (digital ones ``mode="digital"``); a
file of digital channels only, or an ``IQ`` waveform type, is refused.
"""

from __future__ import annotations

import re

import numpy as np

from charz.importer._waveform import Saved, is_math_source, saved_from_values, unit_symbol

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


def _six_column(rows: list[list[str]]) -> list[Saved]:
    head = {r[0].strip(): r[1].strip() for r in rows if len(r) > 1 and r[0].strip()}
    body = [r for r in rows if len(r) >= 5 and _is_num(r[3]) and _is_num(r[4])]
    t = np.array([float(r[3]) for r in body])
    v = np.array([float(r[4]) for r in body])
    if "Record Length" in head and _is_num(head["Record Length"]) and int(float(head["Record Length"])) != v.size:
        raise ValueError(f"Record Length {head['Record Length']} but {v.size} sample rows")
    interval = float(head["Sample Interval"]) if _is_num(head.get("Sample Interval", "")) else None
    dt, t0 = _time_axis(t, interval)
    source = head.get("Source", "CH1") or "CH1"
    return [saved_from_values(v, dt, t0, unit=unit_symbol(head.get("Vertical Units", "V")) or "V", source=source,
                              mode="envelope" if head.get("Pt Fmt", "Y").upper().startswith("ENV") else "sample",
                              math=is_math_source(source), model=head.get("Model Number", ""))]


def _groups(titles: list[str]) -> list[tuple[int, list[int]]]:
    """(time column, its channel columns) for each ``TIME,…`` group of the titles row.

    An MDO/MSO saving analog and digital channels together writes one group per kind,
    side by side with a blank column between: ``TIME,CH1,,TIME,D11,…,D0``.
    """
    starts = [i for i, t in enumerate(titles) if t.upper() == "TIME"]
    out = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(titles)
        cols = [j for j in range(start + 1, end) if titles[j]]
        if not cols:
            raise ValueError(f"the 'TIME' column {start + 1} names no channel")
        out.append((start, cols))
    return out


def _header_block(rows: list[list[str]]) -> list[Saved]:
    titles_at = next((i for i, r in enumerate(rows) if r and r[0].strip().upper() == "TIME"), None)
    if titles_at is None:
        raise ValueError("no 'TIME,CH1…' row before the samples")
    titles = [c.strip() for c in rows[titles_at]]
    groups = _groups(titles)
    width = max(cols[-1] for _, cols in groups) + 1
    body = [r for r in rows[titles_at + 1:] if r and r[0].strip()]
    try:
        table = np.array([[float(r[j]) if r[j].strip() else np.nan for j in range(width)] for r in body])
    except (ValueError, IndexError):
        raise ValueError(f"a sample row does not hold {width} numeric columns ({', '.join(t for t in titles if t)})") from None
    if table.ndim != 2 or table.shape[0] < 2:
        raise ValueError("fewer than two samples")
    model = next((r[1].strip() for r in rows[:titles_at] if len(r) > 1 and r[0].strip().lower() == "model"), "")
    out = []
    for start, cols in groups:
        # This group's header: its key in its own TIME column, values under its channels.
        head: dict[str, list[str]] = {}
        for r in rows[:titles_at]:
            if len(r) > start and r[start].strip():
                head[r[start].strip().lower()] = [r[j].strip() if j < len(r) else "" for j in cols]

        def value(key: str, k: int, default: str, head=head) -> str:
            vals = head.get(key) or []
            given = [v for v in vals if v]
            return vals[k] if k < len(vals) and vals[k] else (given[0] if given else default)

        kind = value("waveform type", 0, "ANALOG").upper()
        if kind not in ("ANALOG", "DIGITAL"):
            article = "an" if kind[:1] in "AEIOU" else "a"
            raise ValueError(f"{article} {kind} waveform, not an analog one: charz reads a current probe's samples")
        t = table[:, start]
        interval = value("sample interval", 0, "")
        dt, t0 = _time_axis(t, float(interval) if _is_num(interval) else None)
        points = value("record length", 0, "")
        if _is_num(points) and int(float(points)) != t.size:
            raise ValueError(f"Record Length {points} but {t.size} sample rows")
        for k, j in enumerate(cols):
            v = table[:, j]
            if np.isnan(v).any():
                raise ValueError(f"column {titles[j]} has empty cells")
            fmt = value("point format", k, "Y").upper()
            mode = "digital" if kind == "DIGITAL" else "sample" if fmt == "Y" else "envelope"
            out.append(saved_from_values(v, dt, t0, unit=unit_symbol(value("vertical units", k, "V")) or "V",
                                         source=titles[j], mode=mode, math=is_math_source(titles[j]), model=model))
    kinds = {w.mode for w in out}
    if kinds == {"digital"}:
        raise ValueError("a DIGITAL waveform, not an analog one: charz reads a current probe's samples")
    return out


def parse_tek_csv(text: str) -> list[Saved]:
    """Every channel saved in a Tek CSV ``text``; ``ValueError`` saying what is wrong otherwise."""
    rows = [line.split(",") for line in text.replace("\r", "").split("\n")]
    first = next((r for r in rows if any(c.strip() for c in r)), [])
    if first and first[0].strip() == "Record Length" and len(first) >= 5:
        return _six_column(rows)
    return _header_block(rows)
