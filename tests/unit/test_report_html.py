"""The report page from hand-made captures and a hand-made profile: self-contained, complete, honest.

The captures are a small MXP-like sweep drawn here (two 8-page steps of peak current,
reads of one and two 32 KiB units); the profile is written out by hand with one
undetermined result, free text that tries to be HTML and a web address, and the
optional ``reads`` and ``validation`` sections other commands add.
"""

from __future__ import annotations

import base64
import copy
import io
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from matplotlib import image as mpimg

from charz.archive import Capture, Channel
from charz.waveform import Waveform
from charz.report import HTML_NAME, Measured, Report, Section, build_report, render_html, write_report
from charz.report._numbers import RESULT_LABELS

pytestmark = pytest.mark.unit

PAGE = 4096
DT_WRITE, DT_READ = 2e-6, 4e-6
IDLE_A = 0.015


def _level_a(pages: int) -> float:
    return 0.163 if pages <= 8 else 0.242


def _duration_s(pages: int) -> float:
    return (1000 + 17 * pages) * 1e-6


def _capture(index: int, op: str, size_bytes: int, repeat: int) -> tuple[Capture, dict]:
    dt = DT_WRITE if op == "write" else DT_READ
    t = -2e-4 + np.arange(1500) * dt
    current = np.full(t.size, IDLE_A)
    if op == "write":
        pages = size_bytes // PAGE
        end = _duration_s(pages)
        current[(t >= 0) & (t < end)] += _level_a(pages)
    else:
        units = -(-size_bytes // 32768)
        end = units * 224e-6
        burst = (t >= 0) & (t < end) & ((t % 224e-6) < 120e-6)
        current[burst] += 0.12
    codes = np.round(current / 0.001).astype(np.int16)
    ch = Channel("current", Waveform(codes, 0.001, 0, 0.0, dt, -2e-4, unit="A", source="CH1", code_min=-32768,
                                     code_max=32767))
    cap = Capture(index=index, step=index, op=op, size_bytes=size_bytes, offset_bytes=index << 20, repeat=repeat,
                  time_reference="request", channels=[ch])
    peak = IDLE_A + (_level_a(size_bytes // PAGE) if op == "write" else 0.12)
    return cap, {"op": op, "size_bytes": size_bytes, "repeat": repeat, "index": index, "local_baseline_a": IDLE_A,
                 "end_s": end, "peak_a": peak, "usable": True}


def sweep() -> tuple[list[Capture], Measured]:
    plan = [("write", p * PAGE, r) for p in range(1, 17) for r in range(2)]
    plan += [("read", s, 0) for s in (4096, 32768, 36864, 65536)]
    captures, rows = zip(*(_capture(i, op, size, r) for i, (op, size, r) in enumerate(plan)))
    columns = {key: [row[key] for row in rows] for key in rows[0]}
    return list(captures), Measured.of(**columns)


def q(value, unit, origin="measured", confidence="high", evidence="", **extra):
    d = {"unit": unit, "origin": origin, "confidence": confidence, "evidence": evidence, **extra}
    if value is not None:
        d["value"] = value
    return d


def full_profile() -> dict:
    sizes = list(range(1, 17))
    return {
        "schema": "charz.profile/1",
        "provenance": {"tool": "charz", "version": "0.1.0", "created_utc": "2026-01-31T00:00:00+00:00",
                       "archive": "runs/mxp", "bench_kind": "simulated", "captures_total": 36, "captures_used": 36,
                       "analysis": {"w_peak_samples": 20, "w_pattern_samples": 100}},
        "device": {"model": "SAMSUNG MXP <test>", "serial": "SIM-1"},
        "given": {"channels": 8, "packages": 8, "page_size_bytes": PAGE},
        "results": {
            "n_step": q(2, "steps", evidence="2 levels, boundaries every 8 pages"),
            "step_pages": q(8, "pages", evidence="2 levels, boundaries every 8 pages"),
            "dies_per_package": q(2, "dies", "inferred", evidence="Eq. 1: N_die = 2 steps × 8 pages / 8 packages"),
            "packages_per_unit": q(4, "packages", "inferred", evidence="8 packages / 2 steps"),
            "write_io_unit_bytes": q(32768, "B", "inferred", evidence="Eq. 2: I/O unit = 8/2 packages × 2 dies"),
            "read_io_unit_bytes": q(None, "B", confidence="undetermined",
                                    evidence="bursts and durations disagree <b>here</b>"),
            "allocation_scheme": q("channel-only", "", "inferred", "medium", evidence="channel-only fits with 3 µs rms"),
            "t_xfer_page_s": q(8.2e-5, "s", "given", evidence="given by the user"),
            "t_switch_s": q(3.3e-5, "s", "inferred", "medium", evidence="fitted"),
            "t_prog_s": q(9e-4, "s", "given", evidence="given by the user"),
            "idle_a": q(IDLE_A, "A", uncertainty=1e-4, evidence="median pre-trigger level"),
            "m_peak_a": q(0.178, "A", evidence="first level"),
            "M_peak_a": q(0.257, "A", "measured", "low", evidence="last level"),
        },
        "steps": {"reason": "2 levels, boundaries every 8 pages", "levels_a": [0.163, 0.242], "rises_after_pages": [8],
                  "sizes_pages": sizes, "median_peak_a": [_level_a(p) for p in sizes], "stderr_a": [1e-4] * 16},
        "rise": {  # two packages 30 µs apart, drawn as the mean and the fit would be
            "reason": "the rise of a one-unit write shows 2 package(s) starting at 0, 30 µs",
            "t_s": [i * 6e-6 for i in range(40)],
            "mean_a": [0.05 * (i > 5) + 0.04 * (i > 12) + 0.04 * (i > 17) for i in range(40)],
            "fitted_a": [0.05 * (i > 5) + 0.04 * (i > 12) + 0.04 * (i > 17) for i in range(40)],
            "program_starts_s": [78e-6, 108e-6],
            "hypotheses": [{"packages_per_unit": 2, "score": -120.0}, {"packages_per_unit": 1, "score": -90.0}],
        },
        "allocation": {
            "reason": "channel-only fits with 3 µs rms",
            "sizes_pages": [8, 16], "measured_s": [_duration_s(8), _duration_s(16)], "measured_se_s": [2e-6, 2e-6],
            "candidates": [
                {"scheme": "channel-only", "layouts": ["4×1"], "chi2": 1.0, "rms_residual_s": 3e-6,
                 "predicted_s": [_duration_s(8) + 3e-6, _duration_s(16) - 3e-6]},
                {"scheme": "way-priority", "layouts": ["2×2"], "chi2": 99.0, "rms_residual_s": 2e-4,
                 "predicted_s": [_duration_s(8) + 2e-4, _duration_s(16) + 2e-4]},
            ],
        },
        "reads": {"reason": "bursts: 32768 B fits", "sizes_bytes": [4096, 32768, 36864, 65536], "bursts": [1, 1, 2, 2]},
        "validation": {"rows": [{"record_size_bytes": 4096, "aligned": False, "mb_per_s": 20.0, "j_per_mb": 0.5},
                                {"record_size_bytes": 32768, "aligned": True, "mb_per_s": 60.0, "j_per_mb": 0.2}],
                       "aligned_vs_4k": {"baseline_record_size_bytes": 4096, "aligned_record_size_bytes": 32768,
                                         "mb_per_s_change_pct": 200.0, "energy_change_pct": -60.0},
                       "source": "model", "notes": ["every figure is 'model'", "rail voltage 5 V (assumed)"]},
        "rmw": {"detected": True, "confidence": "high", "reason": "heads of writes below the unit match the read",
                "affected_sizes_bytes": [p * PAGE for p in range(1, 8)], "sizes_bytes": [p * PAGE for p in sizes],
                "head_distance_a": [0.005 if p % 8 else 0.05 for p in sizes]},
        "power": {"rail_v": {"value": 5.0, "origin": "assumed", "note": "assumed: 003 multiplies by 5 V"},
                  "energy": [{"op": "write", "size_bytes": p * PAGE, "energy_j": 1e-3 * (1 + p // 8)} for p in sizes]},
        "warnings": ["2 capture(s): <script>alert(1)</script> see https://example.invalid/x and http://h/y"],
    }


class Page(HTMLParser):
    """The parts of the page the tests look at: rows by id, every src/href, img data."""

    def __init__(self, text: str):
        super().__init__()
        self.rows: dict[str, str] = {}
        self.refs: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self._row: str | None = None
        self._text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        attrs = dict(attrs)
        for name in ("src", "href", "action", "data"):
            if name in attrs:
                self.refs.append((tag, name, attrs[name]))
        if tag == "tr" and str(attrs.get("id", "")).startswith("result-"):
            self._row, self._text = attrs["id"][len("result-"):], []

    def handle_endtag(self, tag):
        if tag == "tr" and self._row is not None:
            self.rows[self._row] = " ".join(self._text)
            self._row = None

    def handle_data(self, data):
        if self._row is not None:
            self._text.append(data.strip())


@pytest.fixture(scope="module")
def report() -> Report:
    captures, measured = sweep()
    return build_report(full_profile(), measured, captures, session="runs/mxp", profile_source="read from runs/mxp/profile.toml",
                        damaged=("000007.json: not valid JSON",))


@pytest.fixture(scope="module")
def page(report) -> str:
    return render_html(report)


def test_every_figure_is_drawn_from_a_full_profile(report):
    assert [(s.key, s.drawn) for s in report.sections] == [
        ("1-peak-staircase", True), ("2-write-waveforms", True), ("3-allocation", True), ("3b-rise", True),
        ("4-read-bursts", True), ("5-validation", True), ("6-read-modify-write", True), ("7-power-budget", True)]
    assert report.sections[0].evidence == "2 levels, boundaries every 8 pages"
    assert report.sections[5].evidence.splitlines() == [
        "32 KiB records against 4 KiB: +200 % MB/s, -60 % energy (003 Table 4 reports this ratio)",
        "source: model", "every figure is 'model'", "rail voltage 5 V (assumed)"]


def test_the_analysis_words_are_shown_beside_each_figure(page):
    assert ('<p class="evidence"><strong>What the analysis says:</strong> 2 levels, boundaries every 8 pages</p>'
            in page)
    assert "<li>rail voltage 5 V (assumed)</li>" in page  # several notes become a list


def test_the_page_refers_to_nothing_outside_itself(page):
    assert "http://" not in page and "https://" not in page
    parsed = Page(page)
    assert not parsed.tags & {"script", "link", "iframe", "object", "embed", "base"}
    for tag, attr, value in parsed.refs:
        if tag == "img":
            assert value.startswith("data:image/png;base64,"), value[:40]
        else:
            assert (tag, attr) == ("a", "href") and value.startswith("#"), (tag, attr, value)
    assert "url(" not in page and "@import" not in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_every_result_appears_with_its_value_origin_confidence_and_evidence(page):
    rows = Page(page).rows
    results = full_profile()["results"]
    assert set(rows) == set(results)
    for key, quantity in results.items():
        row = rows[key]
        assert quantity["confidence"] in row and quantity["origin"] in row, key
        if key in RESULT_LABELS:
            assert RESULT_LABELS[key] in row
    assert "2 steps" in rows["n_step"] and "32 KiB (32768 B)" in rows["write_io_unit_bytes"]
    assert "82.0 µs" in rows["t_xfer_page_s"] and "15.0 ± 0.1 mA" in rows["idle_a"]
    assert "Eq. 1: N_die = 2 steps × 8 pages / 8 packages" in rows["dies_per_package"]
    assert 'data-confidence="low"' in page  # M_peak_a's confidence is machine-readable too


def test_an_undetermined_result_reads_undetermined_and_why(page):
    row = Page(page).rows["read_io_unit_bytes"]
    assert "undetermined — bursts and durations disagree <b>here</b>" in row  # the parser unescapes
    assert "undetermined — bursts and durations disagree &lt;b&gt;here&lt;/b&gt;" in page


def test_result_ids_are_unique_and_the_figures_link_to_them(page):
    ids = re.findall(r'id="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    assert page.count('href="#result-n_step"') == 2  # figures 1 and 2 cite N_step


def test_free_text_is_escaped_and_never_an_address(page):
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "example.invalid/x" in page  # kept readable, just not an address
    assert "SAMSUNG MXP &lt;test&gt;" in page


def test_images_decode_as_png(page):
    uris = [value for tag, _, value in Page(page).refs if tag == "img"]
    assert len(uris) == 8
    for uri in uris:
        png = base64.b64decode(uri.split(",", 1)[1], validate=True)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = mpimg.imread(io.BytesIO(png), format="png")
        height, width = pixels.shape[:2]
        assert 300 <= height <= 1200 and 600 <= width <= 1400


def test_warnings_and_damaged_files_are_listed(page):
    assert '<section id="warnings">' in page
    assert "000007.json: not valid JSON" in page


def test_missing_sections_become_notes_and_the_rest_is_drawn():
    captures, measured = sweep()
    profile = full_profile()
    for key in ("allocation", "reads", "validation", "steps", "power", "rise"):
        profile.pop(key)
    report = build_report(profile, measured, captures)
    drawn = {s.key: s.drawn for s in report.sections}
    assert drawn == {"1-peak-staircase": False, "2-write-waveforms": True, "3-allocation": False, "3b-rise": False,
                     "4-read-bursts": True, "5-validation": False, "6-read-modify-write": True,
                     "7-power-budget": False}
    page = render_html(report)
    assert "Not drawn: the profile has no steps table" in page
    assert "Not drawn: the profile has no power table" in page
    assert "Not drawn: the profile has no allocation candidates (channel-only)" in page
    assert "Not drawn: the profile has no validation section (charz validate adds one)" in page
    assert page.count("<img ") == 3   # waveforms, reads, read-modify-write


def test_reads_draw_without_the_burst_counts():
    captures, measured = sweep()
    profile = full_profile()
    profile.pop("reads")
    section = build_report(profile, measured, captures).sections[4]
    assert section.drawn and section.evidence == ""


def test_a_session_without_reads_says_so():
    captures, measured = sweep()
    writes = measured.op == "write"
    only_writes = Measured(**{f: getattr(measured, f)[writes] for f in
                              ("op", "size_bytes", "repeat", "index", "local_baseline_a", "end_s", "peak_a", "usable")})
    section = build_report(full_profile(), only_writes, captures[:32]).sections[4]
    assert not section.drawn and "no usable read captures" in section.note


def test_a_table_that_contradicts_itself_costs_only_its_figure():
    captures, measured = sweep()
    profile = copy.deepcopy(full_profile())
    profile["allocation"]["candidates"][1]["predicted_s"] = [1e-3]
    profile["steps"]["levels_a"] = [0.1, 0.2, 0.3]
    report = build_report(profile, measured, captures)
    notes = {s.key: s.note for s in report.sections if not s.drawn}
    assert set(notes) == {"1-peak-staircase", "3-allocation"}
    assert notes["3-allocation"].startswith("could not be drawn: allocation candidate 'way-priority' predicts 1")
    assert "Not drawn: could not be drawn: steps: 3 levels need 2 rises" in render_html(report)


def test_undetermined_allocation_highlights_nothing_and_says_why():
    captures, measured = sweep()
    profile = full_profile()
    profile["results"]["allocation_scheme"] = q(None, "", "inferred", "undetermined", evidence="two walks fit equally")
    page = render_html(build_report(profile, measured, captures))
    assert "undetermined — two walks fit equally" in page


def test_write_report_writes_the_page_and_one_png_per_figure(report, tmp_path):
    written = write_report(report, tmp_path / "out")
    assert written.html == tmp_path / "out" / HTML_NAME
    assert [p.name for p in written.pngs] == [f"{s.key}.png" for s in report.sections]
    assert written.html.read_text(encoding="utf-8") == render_html(report)
    for path, section in zip(written.pngs, report.sections):
        assert path.read_bytes() == section.png
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]  # no temp files left


def test_a_hand_made_report_renders_a_note_for_a_missing_figure():
    section = Section("9-x", "X", "caption", ("n_step",), None, "nothing to draw")
    page = render_html(Report({"results": {"n_step": q(4, "steps")}}, (section,), "s", "p"))
    assert "Not drawn: nothing to draw." in page and "Figure 9. X" in page  # its key's number, as its PNG's


def test_each_figure_is_numbered_on_the_page_as_its_png_is_named():
    import re

    sections = tuple(Section(k, k, "c", (), None, "n") for k in ("1-a", "3-b", "3b-rise", "4-read-bursts", "wa-2-x"))
    page = render_html(Report({"results": {}}, sections, "s", "p"))
    headings = re.findall(r"<h2>Figure ([^.]+)\. ", page)
    assert headings == ["1", "3", "3b", "4", "WA 2"]
    for s in sections:  # the PNG file name starts with the number the page gives it
        assert s.file_name.replace("wa-", "WA ").startswith(s.number.replace(" ", " "))


def test_an_unwritable_output_is_a_charz_error(report, tmp_path):
    from charz.errors import CharzError

    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    with pytest.raises(CharzError, match="cannot write the report into") as info:
        write_report(report, blocker / "out")
    assert info.value.hint == "choose another directory with -o"
