"""Each error kind has its own exit status, and the table every --help prints names it (issue 25)."""

from __future__ import annotations

import pytest

import charz.errors as errors

pytestmark = pytest.mark.unit


def _direct_kinds():
    """CharzError's direct subclasses: the kinds a script tells apart by the exit status."""
    return [c for c in vars(errors).values()
            if isinstance(c, type) and issubclass(c, errors.CharzError) and c.__bases__ == (errors.CharzError,)]


def test_every_kind_has_its_own_code():
    kinds = _direct_kinds()
    assert len(kinds) >= 8
    codes = [k.exit_code for k in kinds]
    assert len(set(codes)) == len(codes), {k.__name__: k.exit_code for k in kinds}
    assert errors.CharzError.exit_code not in codes


def test_the_table_names_each_kind_at_its_code():
    table = dict(errors.EXIT_CODES)
    assert len(table) == len(errors.EXIT_CODES)  # no code listed twice
    for kind in _direct_kinds():
        assert kind.__name__ in table.get(kind.exit_code, ""), f"{kind.__name__} (exit {kind.exit_code}) not in the table"


def test_subclasses_keep_their_kind_code():
    assert errors.ArchiveCorrupt("f", "x").exit_code == errors.ArchiveError.exit_code
    assert errors.TriggerTimeout("x").exit_code == errors.ScopeError.exit_code
    assert errors.UnsafeTarget("x").exit_code == errors.DeviceError.exit_code
