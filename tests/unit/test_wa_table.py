"""The WA result table (charz wa run / wa show): 80 columns at any WA, columns apart, every warning once."""

from __future__ import annotations

import re

import numpy as np
import pytest

from charz.analysis import PulseCounts, PulseWindows, Quantity, WaEstimate, WaGeometry
from charz.cli._wa_format import format_summary as _format
from charz.cli._wa_format import wrap as _wrap
from charz.wa import WaJob, WaRecord, WaSettings, WaStep


def format_summary(settings, records):
    return _wrap(_format(settings, records))  # as wa run and wa show print it

pytestmark = pytest.mark.unit

SETTINGS = WaSettings(plan=(), windows=PulseWindows(), samplerate_hz=250e3, settle_s=0.05, settle_timeout_s=None,
                      geometry=WaGeometry.given(4, 1, 1, 4096), bench={"kind": "mock"})


def _step(i, wa, *, label="4K-RD-100%-W-4KiB-align-sub-test-12", warnings=(), trusted=True, pulses=123456789):
    counts = PulseCounts(samples=10**9, samplerate_hz=250e3, programs=pulses, reads=0, erases=0, glitches=0, other=0,
                         partial=0, pulses=pulses, open_us=0.0, high_for_us=1e5, windows=PulseWindows(),
                         histogram=np.zeros(2000, dtype=np.int64))
    q = Quantity(1, "", "inferred")
    est = WaEstimate(wa=Quantity(wa, "", "inferred", uncertainty=wa / 50), physical_bytes=q, logical_bytes=q,
                     n_tprogram=q, m_p=q, u_counting=wa / 50, u_volume=0.0)
    job = WaJob("wa-w100-rd-align.fio", 4096, 2**27, 1.0, True, True)
    return WaRecord(step=WaStep("benchmark", job.file, bs=4096, volume=2**27), job=job, label=label, counts=counts,
                    settled=True, errors=() if trusted else ("window cuts a mode",), warnings=tuple(warnings),
                    logical_bytes=2**27, u_logical_bytes=0.0, volume_evidence="fio", truth={"true_wa": wa * 1.1},
                    stream=None, dies=(), estimate=est, counters={"wa": {"value": wa * 1.05}}, re_wa=0.0909)


@pytest.mark.parametrize("wa", [1.0, 7.3177, 12.345, 99.99, 123.4, 4567.0])
def test_the_table_fits_80_columns_and_its_columns_never_touch(wa):
    text = format_summary(SETTINGS, {0: _step(0, wa), 1: _step(1, wa, trusted=False)})
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]
    row = next(line for line in lines if line.startswith("  0 "))
    values = re.split(r"\s+", row.strip())
    # index, label, pulses, WA, ±, u, true, RE, %, SMART: ten separate fields (touching columns merge two)
    assert len(values) == 10, values
    assert values[3] == f"{wa:.6g}"[:len(values[3])] or float(values[3]) == pytest.approx(wa, rel=1e-3)


def test_every_warning_is_said_once_with_its_step():
    w = lambda lo: f"2 program modes: 250–910 µs (512 pulses), {lo}–2160 µs (512 pulses); MLC pages do that"
    records = {i: _step(i, 2.0, warnings=[w(1100 + 10 * i)]) for i in range(5)}
    records[5] = _step(5, 2.0, warnings=["glitches: 3 dropped"])
    records[6] = _step(6, 2.0, warnings=["glitches: 3 dropped"])
    text = format_summary(SETTINGS, records)
    assert "7 warnings:" in text
    assert text.count("MLC pages do that") == 1  # the explanation once
    for i in range(5):
        assert f"step {i}: 2 program modes: 250–910 µs (512 pulses), {1100 + 10 * i}–2160 µs" in text
    assert text.count("glitches: 3 dropped") == 1 and "steps 5, 6: glitches: 3 dropped" in text
