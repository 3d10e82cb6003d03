"""``charz scope check``: the advice and the report are pure functions of the numbers."""

from __future__ import annotations

import pytest

from charz.cli._scope import format_check
from charz.scope import CheckResult, ScopeSettings
from charz.scope._check import advise

pytestmark = pytest.mark.unit

GOOD = dict(sample_interval_s=2e-6, y_unit="A", clipped_fraction=0.0, forced=False, errors=(),
            span=0.5, vertical_scale=0.1, trigger_level=0.3, minimum=0.1, maximum=0.6)


def test_a_good_capture_needs_no_advice():
    assert advise(**GOOD) == []


@pytest.mark.parametrize("change, words", [
    ({"sample_interval_s": 4e-6}, "needs <= 2 us"),
    ({"y_unit": "V"}, "not A: set the probe"),
    ({"clipped_fraction": 0.02}, "raise the vertical scale"),
    ({"forced": True, "trigger_level": 0.9}, "is above the recorded range"),
    ({"errors": ((221, "Settings conflict"),)}, "221 Settings conflict"),
    ({"span": 0.05}, "lower the vertical scale"),
])
def test_each_problem_gets_its_advice(change, words):
    out = advise(**{**GOOD, **change})
    assert len(out) == 1 and words in out[0]


def result(**kw) -> CheckResult:
    base = dict(resource="TCPIP::127.0.0.1::4000::SOCKET", identity="TEKTRONIX,DPO3014,C010101,FV:v2.14",
                driver="TekDPO", model="tek_dpo3000", settings=ScopeSettings(), forced=False,
                waited_s=0.0123, n_points=10000, sample_interval_s=2e-6, y_unit="A", minimum=0.1,
                mean=0.2, maximum=0.6, clipped_fraction=0.0, description="Ch1, DC coupling")
    return CheckResult(**{**base, **kw})


def test_report_lists_settings_statistics_and_verdict():
    text = format_check(result())
    assert "TEKTRONIX DPO3014 (serial C010101, FV:v2.14)" in text
    assert "10000 points at 2 us (20 ms)" in text
    assert "min 100 mA, mean 200 mA, max 600 mA, clipped 0.00%" in text
    assert text.endswith("verdict   OK: ready to characterize")
    bad = format_check(result(forced=True, waited_s=2.0, advice=("raise the vertical scale",)))
    assert "forced after 2 s: nothing triggered" in bad
    assert bad.endswith("- raise the vertical scale")
    assert result(advice=("x",)).to_dict()["ok"] is False
