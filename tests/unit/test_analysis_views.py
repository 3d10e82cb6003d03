"""Issue 22's rules for the views and their confidence, on numbers drawn here from the physics.

* "high" needs two independent views that agree; one view alone is at most "medium";
* a read unit of one page shows as durations that grow by the same step per page, even
  when the bursts cannot be counted (each burst followed by a host-transfer shoulder at
  nearly the burst's level leaves no dip between them).
"""

import numpy as np
import pytest

from charz.analysis._characterize import one_view_at_most_medium
from charz.analysis._quantity import INFERRED, Quantity
from charz.analysis._reads import fit_read_unit

pytestmark = pytest.mark.unit

PAGE = 4096


@pytest.mark.parametrize("decided_by, expected", [("rise", "medium"), ("staircase", "medium"), ("durations", "medium"),
                                                  (None, "medium"), ("both", "high")])
def test_high_needs_two_views(decided_by, expected):
    details = {} if decided_by is None else {"decided_by": decided_by}
    q = Quantity(4, "dies", INFERRED, confidence="high", evidence="e", details=details)
    assert one_view_at_most_medium(q).confidence == expected
    low = Quantity(4, "dies", INFERRED, confidence="medium", evidence="e", details=details)
    assert one_view_at_most_medium(low).confidence == "medium"  # never raised


def per_page_reads(rng, t_read_us=55.0, xfer_us=60.0, host_mb_s=250.0, latency_us=45.0, repeats=3):
    """Reads of 1..40 pages and 128 pages, each page read then moved out (003 §4.1): the time per
    page is the array read plus the longer of the channel and host transfers, the same every page."""
    pages = np.repeat(np.r_[np.arange(1, 41), 128], repeats)
    per_page = t_read_us + max(xfer_us, PAGE / host_mb_s) + 5.5
    d = latency_us + pages * per_page + rng.normal(0, 2.0, pages.size)
    return pages * PAGE, d * 1e-6


def test_one_page_read_unit_from_durations_when_bursts_are_not_countable():
    rng = np.random.default_rng(5)
    sizes, d = per_page_reads(rng)
    # the shoulders hide the dips: counts far below one per page, scattered
    bursts = np.maximum(1, np.round(sizes / PAGE * rng.uniform(0.1, 0.5, sizes.size)))
    r = fit_read_unit(sizes, d, bursts, PAGE, 250e6)
    assert r.unit_bytes == PAGE, r.reason
    assert r.confidence == "medium", r.reason  # one view
    assert "abstains" in r.reason


def test_one_page_read_unit_is_high_when_the_bursts_agree():
    rng = np.random.default_rng(6)
    sizes, d = per_page_reads(rng)
    r = fit_read_unit(sizes, d, sizes / PAGE, PAGE, 250e6)
    assert (r.unit_bytes, r.confidence) == (PAGE, "high"), r.reason


def test_bursts_that_fit_another_unit_well_are_a_disagreement():
    rng = np.random.default_rng(7)
    sizes, d = per_page_reads(rng)
    # bursts say 2 pages at every size: a countable view that disagrees with the durations
    r = fit_read_unit(sizes, d, np.ceil(sizes / (2 * PAGE)), PAGE, 250e6)
    assert r.unit_bytes is None and r.confidence == "undetermined"
    assert "bursts" in r.reason and "durations" in r.reason  # both views named


def test_a_shorter_host_transfer_is_not_read_as_no_read_first():
    from charz.analysis._rmw import _below_unit_slower

    # 16 KiB pages at 150 MB/s: 109 µs each from the host.  A unit of 8 pages programs whole;
    # a write of 1–3 pages reads the rest first (90 µs) but moves 5–7 fewer pages from the host,
    # so it ends earlier than a whole unit — which, alone, reads as "no room for a read".
    page, unit, rate = 16384, 8 * 16384, 150e6
    host = page / rate * 1e6
    sizes = np.repeat([page, 2 * page, 3 * page, unit], 3)
    whole_us = 300 + 8 * host + 1700
    jitter = np.tile([1.0, -1.0, 0.0], 4)
    reads_first = np.where(sizes < unit, whole_us - (unit - sizes) / rate * 1e6 + 90.0, whole_us)
    assert _below_unit_slower(sizes, (reads_first + jitter) * 1e-6, unit, 120e-6)[0] is False  # the naive view
    slower, why = _below_unit_slower(sizes, (reads_first + jitter) * 1e-6, unit, 120e-6, rate)
    assert slower is not False, why  # the saving may hide a read: no "no"
    # A padded drive whose pipeline hides the host time: partial writes take 10 µs longer
    # (their padding) — the saving cannot turn that into a read, nor the add-back into one.
    padded = np.where(sizes < unit, whole_us + 10.0, whole_us)
    slower, why = _below_unit_slower(sizes, (padded + jitter) * 1e-6, unit, 120e-6, rate)
    assert slower is not True, why
