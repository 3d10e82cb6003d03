"""The terminal summary reads as a person writes: singular units, given numbers unmangled."""

import pytest

from charz.cli._analyze import format_summary

pytestmark = pytest.mark.unit


def q(value, unit):
    return {"value": value, "unit": unit, "origin": "inferred", "confidence": "high", "evidence": "e"}


def test_one_of_a_unit_is_singular_and_given_floats_are_short():
    profile = {
        "device": {"model": "m", "serial": "s"},
        "provenance": {"archive": "a", "bench_kind": "simulated", "captures_used": 1, "captures_total": 1},
        "given": {"channels": 8, "t_xfer_page_s": 8 * 1e-5 * (1 - 1e-16)},
        "results": {"dies_per_package": q(1, "dies"), "step_pages": q(1, "pages"), "n_step": q(20, "steps")},
    }
    text = format_summary(profile)
    assert "1 die " in text + " " and "1 page " in text + " " and "20 steps" in text
    assert "1 dies" not in text and "1 pages" not in text
    assert "register transfer 80 µs" in text and "7.99999" not in text  # 8e-05 s, in the unit people use


def test_a_read_unit_bound_reads_as_at_least_the_largest_read():
    # Every read tried was one unit: the unit is at least the largest read (it may be exactly
    # it), so the summary says ">= 512 KiB", not "> 508 KiB" (one page less, whole pages).
    results = {"read_io_unit_bytes": {"value": None, "unit": "B", "origin": "measured", "confidence": "undetermined",
                                      "evidence": "e", "details": {"at_least_bytes": 512 * 1024,
                                                                   "more_than_bytes": 508 * 1024}}}
    profile = {"device": {"model": "m", "serial": "s"},
               "provenance": {"archive": "a", "bench_kind": "simulated", "captures_used": 1, "captures_total": 1},
               "results": results}
    text = format_summary(profile)
    assert ">= 512 KiB" in text and "> 508 KiB" not in text, text
