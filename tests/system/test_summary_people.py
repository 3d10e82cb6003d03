"""The terminal summary, the profile and the report as a person reads them (issue 15 items 4 and 7).

Sessions come from `charz simulate` and the mock bench through the real CLI; what is
checked is what a reader would object to: lines over 80 columns, a warning said twice
(or with two values), "1 pages", float noise, "serial ?", a 5 V rail nobody gave listed
as given, a 40-column allocation table, duplicate or self-contradicting candidate rows.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from charz.profile import read_profile

pytestmark = pytest.mark.system

PLURAL_AFTER_ONE = re.compile(r"(?<![\d.,])1 (pages|dies|packages|steps|channels|captures)\b")
FLOAT_NOISE = re.compile(r"\d\.\d{7,}|\de-\d")
SCHEMES = ("channel-only", "channel-priority", "way-priority")


def charz(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "charz", *args], capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"charz {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("people")
    out = {}
    for preset in ("x25m", "mxp"):
        out[preset] = root / preset
        charz("simulate", "--preset", preset, "--out", str(out[preset]), "--quiet")
    return out


@pytest.fixture(scope="module")
def analyzed(sessions, tmp_path_factory):
    """``analyze(preset, json=False)``: what `charz analyze` printed for that session — the
    summary (the profile written to ``profile_path(preset)``) or ``--json``.  Each command
    runs once per module and the tests share its output (a string: nothing can change it),
    instead of several tests analyzing the same session again in the same way."""
    root = tmp_path_factory.mktemp("analyzed")
    outputs: dict[tuple[str, bool], str] = {}

    def analyze(preset: str, json: bool = False) -> str:
        if (preset, json) not in outputs:
            where = ["--json"] if json else ["-o", str(root / f"{preset}.toml")]
            outputs[preset, json] = charz("analyze", str(sessions[preset]), *where).stdout
        return outputs[preset, json]

    def profile_path(preset: str) -> Path:
        analyze(preset)  # the summary's command writes it
        return root / f"{preset}.toml"

    analyze.profile_path = profile_path
    return analyze


def _long_lines(text: str) -> list[str]:
    """Lines over 80 columns; a path counts as one word of 20 (paths stay whole, to copy)."""
    return [line for line in text.splitlines() if len(re.sub(r"(?<!\S)/\S+|\S+/\S+/\S+", "P" * 20, line)) > 80]


@pytest.mark.parametrize("preset", ["x25m", "mxp"])
def test_summary_fits_80_columns_and_reads_as_written(analyzed, preset):
    text = analyzed(preset)
    assert not _long_lines(text), _long_lines(text)
    assert not PLURAL_AFTER_ONE.findall(text), PLURAL_AFTER_ONE.findall(text)
    assert not FLOAT_NOISE.findall(text), FLOAT_NOISE.findall(text)
    assert "serial ?" not in text


@pytest.mark.parametrize("preset", ["x25m", "mxp"])
def test_profile_says_one_page_and_holds_no_float_noise(analyzed, preset):
    profile = json.loads(analyzed(preset, json=True))
    evidence = " ".join(q.get("evidence", "") for q in profile["results"].values())
    assert not PLURAL_AFTER_ONE.findall(evidence), PLURAL_AFTER_ONE.findall(evidence)
    # 80 µs is 8e-05 s in the file, not 7.999999999999999e-05 (float noise read as precision)
    noise = re.findall(r"\d\.\d*(?:9{7}|0{7})\d", json.dumps(profile))
    assert not noise, noise


def test_rail_nobody_gave_is_assumed_everywhere(sessions, analyzed, tmp_path):
    session = sessions["mxp"]
    profile = json.loads(analyzed("mxp", json=True))
    assert "rail_v" not in profile["given"]
    assert profile["assumed"] == {"rail_v": 5.0}
    assert profile["power"]["rail_v"]["origin"] == "assumed"
    text = analyzed("mxp")
    given = [line for line in text.splitlines() if line.startswith("given")]
    assumed = [line for line in text.splitlines() if line.startswith("assumed")]
    assert given and "rail" not in " ".join(given) and "5 V" not in " ".join(given)
    assert assumed and "rail 5 V" in assumed[0]
    # The report: under "Assumed", not "Given".
    charz("report", str(session), "-o", str(tmp_path / "report"), "--profile", str(analyzed.profile_path("mxp")))
    page = (tmp_path / "report" / "report.html").read_text()
    given_table = page.split("<h3>Given")[1].split("</table>")[0]
    assert "rail_v" not in given_table
    assert "rail_v" in page.split("<h3>Assumed")[1].split("</table>")[0]
    assert "serial ?" not in page


def test_rail_given_on_the_command_line_is_given(sessions):
    profile = json.loads(charz("analyze", str(sessions["mxp"]), "--rail-v", "12", "--json").stdout)
    assert profile["given"]["rail_v"] == 12.0 and "assumed" not in profile
    assert profile["power"]["rail_v"]["origin"] == "given"


def test_allocation_evidence_is_condensed_without_duplicates_or_contradictions(analyzed):
    text = analyzed("x25m")
    profile = json.loads(analyzed("x25m", json=True))
    block = text.split("allocation:")[1].split("\n\n")[0].splitlines()
    sizes_row = next(line for line in block if "write size" in line)
    shown = [int(v) for v in sizes_row.split(")")[-1].split()]
    assert 1 < len(shown) <= 8 < len(profile["allocation"]["sizes_pages"])  # the full table stays in --json
    rows = [line for line in block if line.split() and line.split()[0] in SCHEMES]
    numbers = [tuple(re.findall(r"\b\d+\b", line.split("rms")[0])) for line in rows]
    assert len(set(numbers)) == len(numbers), "two identical rows"
    for line in rows:  # a row names one scheme, never another one in brackets
        assert sum(line.count(s) for s in SCHEMES) == 1, line
    # nor do the evidence texts: a block layout is said as blocks, not as a second scheme name
    layout_as_scheme = re.compile(r"\d+×\d+ (channel|way)-priority")
    texts = [text, profile["results"]["allocation_scheme"]["evidence"], profile["allocation"]["reason"]]
    assert not any(layout_as_scheme.search(t) for t in texts), texts
    # The sizes shown are those where the chosen scheme and the runner-up differ most.
    cands = profile["allocation"]["candidates"]
    best = cands[0]
    other = next(c for c in cands if c["scheme"] != best["scheme"])
    gap = {s: abs(a - b) for s, a, b in zip(profile["allocation"]["sizes_pages"], best["predicted_s"],
                                            other["predicted_s"])}
    assert min(gap[s] for s in shown) >= sorted(gap.values())[-len(shown)]


def test_standby_tail_said_once_with_one_value(tmp_path):
    # 003 §5.5: the MXP stays ~80 mA above idle for seconds after each request.
    out = tmp_path / "mxp"
    proc = charz("characterize", "--mock", "--preset", "mxp", "--repeats", "1", "--read-sizes", "none",
                 "--out", str(out))
    text = proc.stdout + proc.stderr
    assert text.count("after each request the drive stays") == 1, text
    assert not _long_lines(proc.stdout), _long_lines(proc.stdout)
    profile = read_profile(out / "profile.toml")  # what the session wrote (`charz analyze` again: the same)
    value = re.search(r"stays (\d+) mA", text).group(1)
    assert any(f"stays {value} mA" in w for w in profile["warnings"])


def test_a_rail_voltage_given_as_5_v_is_given_not_assumed(tmp_path):
    # The default is 5 V; typing --rail-v 5 is still the user's word and must be recorded so.
    out = tmp_path / "s"
    proc = charz("characterize", "--mock", "--preset", "mxp", "--sizes", "4k,32k,64k", "--read-sizes", "none",
                 "--repeats", "1", "--rail-v", "5", "--out", str(out), "--no-analyze")
    autoset = [line for line in proc.stderr.splitlines() if line.startswith("autoset")]
    assert autoset and all(len(line) <= 80 for line in autoset), autoset
    bench = json.loads((out / "session.json").read_text("utf-8"))["bench"]
    assert bench["rail_v"] == 5.0 and bench["rail_v_origin"] == "given on the command line"
    out2 = tmp_path / "t"
    charz("characterize", "--mock", "--preset", "mxp", "--sizes", "4k,32k,64k", "--read-sizes", "none",
          "--repeats", "1", "--out", str(out2), "--no-analyze")
    assert json.loads((out2 / "session.json").read_text("utf-8"))["bench"]["rail_v_origin"].startswith("assumed")
