"""Why `charz report` leaves out the closed-form figure, said for the archive at hand."""

from __future__ import annotations

import pytest

from charz.analysis import PulseWindows, WaGeometry
from charz.report._wa_report import _no_models_why
from charz.sim import ftl_options, mock_config
from charz.wa import SteadySeries, WaSettings

pytestmark = pytest.mark.unit

SERIES = [SteadySeries("sub-tests 2–3 of 4K-RD-100%-W", None, 2, (6.6, 0.05), None)]


def _bench(**ftl):
    """A mock archive's bench as charz wrote it before the simulator stated its closed-form inputs."""
    cfg = mock_config(**ftl)
    return {"kind": "mock", "ftl": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__}}


def _settings(**ftl):
    return WaSettings(plan=(), windows=PulseWindows(), samplerate_hz=1e5, settle_s=0.05, settle_timeout_s=None,
                      geometry=WaGeometry.given(4, 1, 1, 4096), bench=_bench(**ftl))


@pytest.mark.parametrize("name, said", [("wolf", "Wolf, 2 groups"), ("fdp", "FDP as 002"), ("cost-benefit",
                                                                                             "cost-benefit GC")])
def test_a_mock_drive_with_another_manager_is_named(name, said):
    why = _no_models_why(_bench(**ftl_options(name, 0)), SERIES)
    assert said in why and "plain greedy" in why and "OP" not in why


def test_without_a_series_the_reason_is_the_missing_series():
    assert "no steady sub-test series" in _no_models_why(_bench(**ftl_options("wolf", 0)), [])
    assert "no steady sub-test series" in _no_models_why({"kind": "bench"}, SERIES)


def test_figures_with_nothing_to_show_are_not_drawn_but_said(tmp_path):
    from charz.report._wa_report import write_wa_pngs

    written, skipped = write_wa_pngs(_settings(), {}, tmp_path / "rep")
    assert written == [] and list((tmp_path / "rep").iterdir()) == []
    assert [name for name, _ in skipped] == ["wa-histogram.png", "wa-benchmarks.png", "wa-volume.png", "wa-models.png"]
    assert all(why for _, why in skipped) and "no sub-tests" in dict(skipped)["wa-volume.png"]


@pytest.mark.parametrize("lines, multi", [(True, True), (False, True), (False, False)])
def test_the_figures_erase_unit_is_the_simulated_ftls(lines, multi):
    # wa model --archive (from the FTL's config) and the figure's legend (from the archive's
    # settings, without the simulator) once said 1024 and 256 pages for the same line-GC drive
    from charz.sim import closed_form_inputs
    from charz.sim.ftl import FtlConfig
    from charz.wa import closed_form_of

    bench = _bench(lines=lines, multi_plane=multi)
    cfg = FtlConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in bench["ftl"].items()})
    geo = closed_form_of(bench)  # an archive from before the simulator stated them: read off its FtlConfig
    assert (geo["pages_per_unit"], geo["units_per_pool"]) == (cfg.pages_per_unit, cfg.units_per_pool)
    assert geo == closed_form_inputs(cfg)  # the simulator's own statement, as archives now keep it
    assert closed_form_of({**bench, "closed_form": closed_form_inputs(cfg)}) == geo