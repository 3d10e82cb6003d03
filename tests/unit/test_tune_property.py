"""Properties over many drive geometries: every target answers, and its numbers agree with the unit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.tune import TARGETS, advise
from charz.tune.testing import profile_dict

pytestmark = pytest.mark.unit

geometry = st.fixed_dictionaries({
    "page": st.sampled_from([2048, 4096, 8192, 16384]),
    "unit_pages": st.integers(1, 64),
    "n_step": st.one_of(st.none(), st.integers(1, 32)),
    "confidence": st.sampled_from(["high", "medium", "low"]),
    "block": st.sampled_from([1024, 4096, 65536]),
})


def option_values(advice, name):
    return [o.value for c in advice.commands for o in c.options if o.name == name]


@settings(max_examples=60, deadline=None)
@given(geometry)
def test_every_target_answers_and_agrees_with_the_unit(g):
    unit = g["page"] * g["unit_pages"]
    profile = profile_dict(unit_bytes=unit, n_step=g["n_step"], step_pages=g["unit_pages"], packages=None,
                           page_size=g["page"], confidence=g["confidence"])
    full = unit * g["n_step"] if g["n_step"] else unit
    for fs in TARGETS:
        a = advise(profile, fs=fs, limits=None, block_size_bytes=g["block"])
        for c in a.commands:
            assert all(type(x) is str for x in c.argv)
        if a.basis != "unit":
            assert g["unit_pages"] == 1
            continue
        if fs == "ext4":
            assert all(s * g["block"] == unit for s in option_values(a, "stride"))
            assert all(w * g["block"] == full for w in option_values(a, "stripe_width"))
            if unit > g["block"] and unit % g["block"] == 0:
                assert option_values(a, "stride"), "a unit of whole blocks must give a stride"
        if fs == "xfs":
            assert all(su == unit for su in option_values(a, "su"))
            if unit % g["block"] == 0:
                assert option_values(a, "su"), "a unit of whole blocks must give su"
        if fs in ("zfs", "mdadm"):
            for size in option_values(a, "recordsize") + option_values(a, "chunk"):
                assert size >= unit and size & (size - 1) == 0
        if fs == "partition":
            (start_sectors,) = [o.value for o in a.commands[0].options]
            start = start_sectors * 512
            assert start % (1 << 20) == 0 and start % full == 0
