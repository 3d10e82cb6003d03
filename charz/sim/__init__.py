"""The mock bench: a simulated SSD that draws supply current, and what renders it.

Runtime code (session, drivers, analysis) never imports this package; only the
CLI's ``--mock`` paths and the tests do.

=====================  =====================================================
``DriveModel``         geometry, firmware, timing, currents, nuisances (data)
``load_preset``        the four replicas of 003 from ``profiles/NAME.toml``
``SimulatedSSD``       schedules requests page by page, renders amperes
``SimulatedBench``     a ``CurrentSource`` for the mock oscilloscope
``digitize``           amperes → 8-bit scope codes, as a ``Waveform``
``simulate_capture``   one plan step → one archived capture (deterministic per step)
``mock_bench``         the mock bench for a session: scope resource + physics link
``schedule_write``     the simulated firmware/NAND timeline of one write
``MockWaBench``        ``charz wa run --mock``: the simulated FTL's R/B pulses
                       behind the real sigrok-cli (``mock_config``, ``ftl_options``)
=====================  =====================================================
"""

from charz.sim._capture import replay, simulate_capture
from charz.sim._digitizer import digitize
from charz.sim._mock_bench import MockLink, mock_bench
from charz.sim._model import (
    Currents,
    Digitizer,
    DriveModel,
    Firmware,
    Geometry,
    Nuisances,
    Timing,
    default_presets_dir,
    list_presets,
    load_preset,
    model_from_dict,
)
from charz.sim._schedule import Activity, DriveState, schedule_read, schedule_write
from charz.sim._source import CurrentSource
from charz.sim._ssd import SimulatedBench, SimulatedSSD
from charz.sim._wa_bench import (
    FTL_CHOICES,
    MOCK_MIN_GAP_US,
    MOCK_SETTLE_S,
    MockWaBench,
    closed_form_inputs,
    ftl_options,
    mock_config,
)
from charz.sim._stream import play_stream

__all__ = [
    "FTL_CHOICES",
    "MOCK_MIN_GAP_US",
    "MOCK_SETTLE_S",
    "MockWaBench",
    "closed_form_inputs",
    "ftl_options",
    "mock_config",
    "Activity",
    "Currents",
    "CurrentSource",
    "Digitizer",
    "DriveModel",
    "DriveState",
    "Firmware",
    "Geometry",
    "Nuisances",
    "SimulatedBench",
    "SimulatedSSD",
    "Timing",
    "default_presets_dir",
    "digitize",
    "list_presets",
    "load_preset",
    "model_from_dict",
    "schedule_read",
    "schedule_write",
    "replay",
    "simulate_capture",
    "mock_bench",
    "MockLink",
    "play_stream",
]
