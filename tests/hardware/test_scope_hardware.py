"""A real oscilloscope on the bench (skipped unless CHARZ_SCOPE names its VISA resource).

    CHARZ_SCOPE=TCPIP::192.168.1.20::4000::SOCKET pytest tests/hardware -m hardware

Optional: CHARZ_SCOPE_VISA_LIBRARY (default @py), CHARZ_SCOPE_CHANNEL (default CH1),
CHARZ_SCOPE_SCALE (A/div, default 0.1).  The tests only read and set acquisition
settings; they force triggers and never need an I/O on a drive.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from charz.scope import ScopeSettings, open_scope, run_check

RESOURCE = os.environ.get("CHARZ_SCOPE")

pytestmark = [
    pytest.mark.hardware,
    pytest.mark.skipif(not RESOURCE, reason="set CHARZ_SCOPE to a VISA resource string"),
]


@pytest.fixture
def scope():
    s = open_scope(RESOURCE, visa_library=os.environ.get("CHARZ_SCOPE_VISA_LIBRARY", "@py"),
                   timeout_s=5.0)
    yield s
    s.close()


def settings() -> ScopeSettings:
    return ScopeSettings(channel=os.environ.get("CHARZ_SCOPE_CHANNEL", "CH1"),
                         vertical_scale=float(os.environ.get("CHARZ_SCOPE_SCALE", "0.1")),
                         vertical_position_div=-3.0, record_length=10_000, sample_interval_s=2e-6)


def test_identifies_as_a_described_model(scope):
    assert scope.identity is not None and scope.model.matches(scope.identity.manufacturer,
                                                              scope.identity.model)
    assert scope.errors() == () or all(not e.is_error for e in scope.errors())


def test_one_forced_capture_has_the_requested_shape(scope):
    result = run_check(scope, settings(), timeout_s=0.5)
    assert result.n_points == 10_000
    assert result.sample_interval_s == pytest.approx(2e-6, rel=1e-6)
    assert result.errors == ()


def test_two_fetches_of_one_record_agree(scope):
    scope.configure(settings())
    scope.arm()
    scope.force_trigger()
    scope.wait(timeout_s=5.0)
    a, b = scope.fetch(max_clipped_fraction=1.0), scope.fetch(max_clipped_fraction=1.0)
    assert np.array_equal(a.codes, b.codes) and a.preamble == b.preamble
