"""The report as one self-contained HTML page: figures inline as data URIs, CSS inline, no scripts.

The page must open from a USB stick on a bench PC without a network, and must not
reach out to one: images are ``data:`` URIs, the style sheet is in ``<style>``, and
a Content-Security-Policy forbids every fetch except inline images and styles.
Free text from the profile (evidence, warnings, device strings) is escaped, and
any ``://`` in it is broken with a zero-width space so that no address in the
page is ever a link or mistaken for one.
"""

from __future__ import annotations

import base64
import html
from typing import Any, Iterable, Mapping

from charz.report._model import Report, Section
from charz.report._numbers import RESULT_LABELS, format_given, format_quantity, ordered_result_keys
from charz.report._style import TIME_ZERO

__all__ = ["render_html"]

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; color: #1b1b1b; max-width: 1100px; margin: 1.5em auto; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; width: 100%; margin: 0.6em 0; font-size: 0.92em; }
th, td { text-align: left; vertical-align: top; padding: 0.3em 0.5em; border-bottom: 1px solid #e5e5e5; }
th { background: #f4f4f4; }
td.value { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.value.undetermined { white-space: normal; color: #8a3b12; }
code { font-size: 0.9em; }
.badge { display: inline-block; padding: 0 0.5em; border-radius: 0.7em; font-size: 0.85em; }
.conf-high { background: #dff0d8; } .conf-medium { background: #fcf3cf; }
.conf-low { background: #fadbd8; } .conf-undetermined { background: #e5e5e5; }
figure { margin: 0.8em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #333; font-size: 0.93em; margin-top: 0.4em; }
.evidence { border-left: 4px solid #4c72b0; padding: 0.3em 0.8em; background: #f3f6fb; }
.note { background: #fff8e1; border-left: 4px solid #e0a800; padding: 0.5em 0.8em; }
nav ul { columns: 2; list-style: none; padding-left: 0; }
footer { color: #666; font-size: 0.85em; margin-top: 3em; border-top: 1px solid #ddd; padding-top: 0.5em; }
"""


def _text(value: Any) -> str:
    """Escaped text that never holds a web address (see the module docstring)."""
    return html.escape(str(value)).replace("://", ":\u200b//")


def _quantity_row(key: str, q: Mapping[str, Any] | None, *, anchor: bool) -> str:
    """One result; the main table's row carries the id, the figures' tables link to it."""
    name = f"<code>{_text(key)}</code>" if anchor else f'<a href="#result-{_text(key)}"><code>{_text(key)}</code></a>'
    row_id = f' id="result-{_text(key)}"' if anchor else ""
    if q is None:
        return f'<tr{row_id} data-key="{_text(key)}"><td>{name}</td><td class="value undetermined" colspan="4">not in the profile</td></tr>'
    confidence = str(q.get("confidence", "undetermined"))
    value = format_quantity(q)
    undetermined = value.startswith("undetermined")
    label = RESULT_LABELS.get(key, "")
    # An undetermined value already reads "undetermined — <evidence>"; saying it twice adds nothing.
    evidence = "" if undetermined else q.get("evidence", "")
    return (
        f'<tr{row_id} data-key="{_text(key)}" data-confidence="{_text(confidence)}">'
        f'<td>{name}{"<br>" + _text(label) if label else ""}</td>'
        f'<td class="value{" undetermined" if undetermined else ""}">{_text(value)}</td>'
        f'<td>{_text(q.get("origin", ""))}</td>'
        f'<td><span class="badge conf-{_text(confidence)}">{_text(confidence)}</span></td>'
        f'<td>{_text(evidence)}</td></tr>'
    )


def _results_table(results: Mapping[str, Any], keys: Iterable[str], *, anchor: bool = False) -> str:
    rows = "".join(_quantity_row(k, results.get(k), anchor=anchor) for k in keys)
    return ("<table><thead><tr><th>result</th><th>value</th><th>origin</th><th>confidence</th>"
            f"<th>evidence</th></tr></thead><tbody>{rows}</tbody></table>")


def _key_value_table(pairs: Mapping[str, Any], *, units: bool = False) -> str:
    if not pairs:
        return "<p>none recorded</p>"
    rows = "".join(f"<tr><th>{_text(k)}</th><td>{_text(format_given(k, v) if units else v)}</td></tr>"
                   for k, v in pairs.items())
    return f"<table><tbody>{rows}</tbody></table>"


def _png_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _figure_section(section: Section, results: Mapping[str, Any]) -> str:
    # numbered as its PNG is named (3b-rise.png is Figure 3b), not by position on the page
    parts = [f'<section id="{_text(section.key)}"><h2>Figure {_text(section.number)}. {_text(section.title)}</h2>']
    if section.drawn:
        parts.append(
            f'<figure><img src="{_png_uri(section.png)}" alt="{_text(section.title)}">'
            f"<figcaption>{_text(section.caption)} (File: <code>{_text(section.file_name)}</code>.)</figcaption></figure>"
        )
    else:
        parts.append(f'<p class="note">Not drawn: {_text(section.note or "no data")}.</p>')
        parts.append(f"<p>{_text(section.caption)}</p>")
    lines = [line for line in section.evidence.splitlines() if line.strip()]
    if len(lines) == 1:
        parts.append(f'<p class="evidence"><strong>What the analysis says:</strong> {_text(lines[0])}</p>')
    elif lines:
        items = "".join(f"<li>{_text(line)}</li>" for line in lines)
        parts.append(f'<div class="evidence"><strong>What the analysis says:</strong><ul>{items}</ul></div>')
    keys = [k for k in section.result_keys if k in results]
    if keys:
        parts.append("<p>The numbers this figure is evidence for:</p>" + _results_table(results, keys))
    parts.append("</section>")
    return "".join(parts)


def _drive_line(device: Mapping[str, Any]) -> str:
    """The serial when the drive has one; otherwise what stood in for it (never "serial ?")."""
    if device.get("serial"):
        return f"serial {_text(device['serial'])}"
    return _text(device.get("note") or "no serial recorded")


def _preset_note(prov: Mapping[str, Any]) -> str:
    """On a simulated or mock bench the preset plays the spec sheet: say which one."""
    if prov.get("preset") and prov.get("bench_kind") in ("mock", "simulated"):
        return f"; here preset {_text(prov['preset'])} plays the spec sheet"
    return ""


def _assumed(profile: Mapping[str, Any]) -> str:
    """Values the analysis used that nobody gave, apart from the given ones, each with why."""
    assumed = profile.get("assumed") or {}
    if not assumed:
        return ""
    notes = {"rail_v": ((profile.get("power") or {}).get("rail_v") or {}).get("note", "")}
    rows = "".join(f"<tr><th>{_text(k)}</th><td>{_text(format_given(k, v))}</td><td>{_text(notes.get(k, ''))}</td></tr>"
                   for k, v in assumed.items())
    return f"<h3>Assumed (nobody gave these)</h3><table><tbody>{rows}</tbody></table>"


def _warnings(warnings: list[Any]) -> str:
    if not warnings:
        return "<p>The analysis raised no warnings.</p>"
    rows = "".join(f"<tr><td>{i}</td><td>{_text(w)}</td></tr>" for i, w in enumerate(warnings, 1))
    return f"<table><thead><tr><th>#</th><th>warning</th></tr></thead><tbody>{rows}</tbody></table>"


def render_html(report: Report) -> str:
    """The whole page as a string.

    Parameters
    ----------
    report : Report

    Returns
    -------
    str
        UTF-8 HTML with every image inline; nothing in it refers outside the page.

    Examples
    --------
    >>> from charz.report._model import Report
    >>> page = render_html(Report({"results": {"n_step": {"value": 4, "unit": "steps", "origin": "measured",
    ...                            "confidence": "high", "evidence": "4 levels"}}}, (), "runs/mxp", "read"))
    >>> 'id="result-n_step"' in page, "4 steps" in page, "http" + "://" in page
    (True, True, False)
    """
    profile = report.profile
    results = profile.get("results") or {}
    device = profile.get("device") or {}
    prov = profile.get("provenance") or {}
    model = device.get("model") or "unknown drive"
    header = (
        f"<h1>charz report: {_text(model)}</h1>"
        f'<p class="sub">{_drive_line(device)} · session <code>{_text(report.session)}</code> · '
        f'{_text(prov.get("bench_kind", "?"))} bench · {_text(prov.get("captures_used", "?"))} of '
        f'{_text(prov.get("captures_total", "?"))} captures used · profile {_text(report.profile_source)}</p>'
    )
    if report.time_reference:  # every time axis shares it; say once what it is
        zero = TIME_ZERO.get(report.time_reference, report.time_reference)
        header += (f'<p class="sub">Time axes: on every figure t = 0 is {_text(zero)} '
                   f'(“time from the {_text(report.time_reference)}”).</p>')
    contents = ['<li><a href="#results">Results</a></li>']
    contents += [f'<li><a href="#{_text(s.key)}">Figure {_text(s.number)}. {_text(s.title)}'
                 f'{"" if s.drawn else " (not drawn)"}</a></li>' for s in report.sections]
    contents += ['<li><a href="#warnings">Warnings</a></li>', '<li><a href="#provenance">Provenance</a></li>']
    body = [
        header,
        f"<nav><ul>{''.join(contents)}</ul></nav>",
        '<section id="results"><h2>Results</h2>'
        "<p>Every number the profile holds: its value, whether it was given, measured or inferred, how sure "
        "charz is, and what decided it. An undetermined result says why.</p>"
        + _results_table(results, ordered_result_keys(results), anchor=True)
        + f"<h3>Given (spec sheet, datasheet, command line{_preset_note(prov)})</h3>"
        + _key_value_table(profile.get("given") or {}, units=True)
        + _assumed(profile)
        + "</section>",
    ]
    body += [_figure_section(s, results) for s in report.sections]
    body.append(f'<section id="warnings"><h2>Warnings</h2>{_warnings(list(profile.get("warnings") or []))}')
    if report.damaged:
        items = "".join(f"<li>{_text(d)}</li>" for d in report.damaged)
        body.append(f"<h3>Damaged files skipped (read with --tolerant)</h3><ul>{items}</ul>")
    body.append("</section>")
    analysis = prov.get("analysis") or {}
    plain_prov = {k: v for k, v in prov.items() if k != "analysis"}
    body.append('<section id="provenance"><h2>Provenance</h2>' + _key_value_table(plain_prov)
                + "<h3>Analysis conventions</h3>" + _key_value_table(analysis)
                + "<h3>Device</h3>" + _key_value_table(device) + "</section>")
    body.append(f"<footer>Written by charz report from {_text(report.session)}; images are embedded, "
                "the page loads nothing from anywhere.</footer>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>charz report: {_text(model)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body) + "\n</body></html>\n"
    )
