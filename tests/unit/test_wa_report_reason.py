"""Why `charz report` leaves out the closed-form figure, said for the archive at hand."""

from __future__ import annotations

import pytest

from charz.analysis._wa_steady import SteadySeries
from charz.report._wa_report import _no_models_why
from charz.sim._wa_bench import ftl_options, mock_config

pytestmark = pytest.mark.unit

SERIES = [SteadySeries("sub-tests 2–3 of 4K-RD-100%-W", None, 2, (6.6, 0.05), None)]


def _settings(**ftl):
    cfg = mock_config(**ftl)
    return {"bench": {"kind": "mock", "ftl": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__}}}


@pytest.mark.parametrize("name, said", [("wolf", "Wolf, 2 groups"), ("fdp", "FDP as 002"), ("cost-benefit",
                                                                                             "cost-benefit GC")])
def test_a_mock_drive_with_another_manager_is_named(name, said):
    why = _no_models_why(_settings(**ftl_options(name, 0)), SERIES)
    assert said in why and "plain greedy" in why and "OP" not in why


def test_without_a_series_the_reason_is_the_missing_series():
    assert "no steady sub-test series" in _no_models_why(_settings(**ftl_options("wolf", 0)), [])
    assert "no steady sub-test series" in _no_models_why({"bench": {"kind": "bench"}}, SERIES)


def test_figures_with_nothing_to_show_are_not_drawn_but_said(tmp_path):
    from charz.report._wa_report import write_wa_pngs

    written, skipped = write_wa_pngs(_settings(), {}, tmp_path / "rep")
    assert written == [] and list((tmp_path / "rep").iterdir()) == []
    assert [name for name, _ in skipped] == ["wa-histogram.png", "wa-benchmarks.png", "wa-volume.png", "wa-models.png"]
    assert all(why for _, why in skipped) and "no sub-tests" in dict(skipped)["wa-volume.png"]
