"""The choices --help shows are the ones the code behind each option accepts (issue 25 item 4).

The CLI spells them out (importing their owners would slow every command and completion);
this test holds the two together.
"""

from __future__ import annotations

import typing

import pytest

from charz.cli import _conventions as conv

pytestmark = pytest.mark.unit


def _args(lit) -> tuple[str, ...]:
    return typing.get_args(lit)


def test_presets_are_the_simulators_presets():
    from charz.sim import list_presets

    assert _args(conv.Preset) == tuple(list_presets())
    assert _args(conv.MockScopePreset) == (*list_presets(), "pulse")


def test_dialects_formats_erase_and_targets_match_their_owners():
    from charz.device._plan import ERASE_METHODS
    from charz.importer._export import FORMATS
    from charz.sim.scope_server import DIALECTS
    from charz.tune import TARGETS

    assert _args(conv.Dialect) == tuple(DIALECTS)
    assert _args(conv.ExportFormat) == tuple(FORMATS)
    assert _args(conv.EraseMethod) == ERASE_METHODS
    assert _args(conv.TuneTarget) == (*TARGETS, "all")


def test_every_mock_ftl_choice_builds_a_policy():
    from charz.sim import ftl_options

    for name in _args(conv.MockFtl):
        assert isinstance(ftl_options(name, 8 << 20), dict)
