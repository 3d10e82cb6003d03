"""One time reference on every time axis of the report, and the page says which (issue 15 item 9).

An archive's captures are timed from one t = 0 (``time_reference``: the scope's trigger
on a bench, the issued request in the simulator).  Every figure with a time axis must
label it from that reference and never name the other one.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from charz_cli import run

pytestmark = pytest.mark.system

OTHER = {"trigger": "request", "request": "trigger"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    from charz.report import load_inputs

    session = tmp_path_factory.mktemp("axes") / "mxp"
    assert run(["simulate", "--preset", "mxp", "--out", str(session), "--sizes", "4k:160k:4k", "--repeats", "2",
                "--read-sizes", "4k,32k,36k,512k", "--seed", "5", "--quiet"]) == 0
    return load_inputs(session)


def _texts(fig) -> list[str]:
    out = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        out += [ax.get_xlabel(), ax.get_ylabel(), ax.get_title(loc="left"), ax.get_title()]
        out += [t.get_text() for t in ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            out += [t.get_text() for t in legend.get_texts()]
    return [t for t in out if t]


@pytest.mark.parametrize("reference", ["trigger", "request"])
def test_every_time_axis_uses_the_archive_s_reference(inputs, reference):
    from charz.report._build import _SECTIONS

    captures = [replace(c, time_reference=reference) for c in inputs.captures]
    timed = 0
    for key, *_, draw, _explain in _SECTIONS:
        fig, note = draw(inputs.profile, inputs.measured, captures)
        if fig is None:
            continue
        labels = [ax.get_xlabel() for ax in fig.axes if ax.get_xlabel().startswith("time")]
        if not labels:
            continue
        timed += 1
        assert set(labels) == {f"time from the {reference} (µs)"}, (key, labels)
        said = " ".join(_texts(fig))
        assert OTHER[reference] not in said, (key, said)
    assert timed >= 3  # write waveforms, read bursts, read-modify-write


def test_the_page_says_once_what_t_0_is(inputs):
    from charz.report import build_report, render_html

    report = build_report(inputs.profile, inputs.measured, inputs.captures)
    page = render_html(report)
    assert page.count("Time axes: on every figure t = 0 is") == 1
    assert "the moment the request was issued" in page
    captions = " ".join(s.caption for s in report.sections)
    assert "from the trigger" not in captions and captions.count("time from the request") >= 3
