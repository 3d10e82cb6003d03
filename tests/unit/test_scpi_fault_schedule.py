"""Mock faults on a schedule: at the Nth opportunity, at capture k, in a window, at a rate."""

import pytest

from charz.sim._scpi_faults import FaultBook, parse_fault


def strikes(book, n, kind="no_reply", text="CURVe?"):
    return [book.take(kind, text) is not None for _ in range(n)]


def test_at_n_strikes_the_nth_matching_opportunity_only():
    book = FaultBook([parse_fault("no_reply:match=CURV,at=3")])
    assert book.take("no_reply", "*ESR?") is None  # not matching: not an opportunity
    assert strikes(book, 5) == [False, False, True, False, False]


def test_at_capture_waits_for_the_drive_to_see_k_requests():
    book = FaultBook([parse_fault("drop_mid_block,at_capture=2")])
    assert strikes(book, 2, "drop_mid_block") == [False, False]
    book.note_io()
    assert strikes(book, 1, "drop_mid_block") == [False]
    book.note_io()
    assert strikes(book, 2, "drop_mid_block") == [True, False]


def test_a_time_window():
    now = [0.0]
    book = FaultBook([parse_fault("slow:delay_s=1,after_s=10,until_s=20,count=None")], clock=lambda: now[0])
    assert strikes(book, 1, "slow") == [False]
    now[0] = 15
    assert strikes(book, 2, "slow") == [True, True]
    now[0] = 20
    assert strikes(book, 1, "slow") == [False]


def test_a_rate_is_seeded_and_roughly_kept():
    def run():
        return strikes(FaultBook([parse_fault("stale_reply:rate=0.2,seed=4,count=None")]), 2000, "stale_reply")
    first = run()
    assert first == run()  # repeatable
    assert 300 < sum(first) < 500


@pytest.mark.parametrize("spec", ["no_reply:at=0", "no_reply:rate=0", "no_reply:rate=1.5",
                                  "no_reply:after_s=5,until_s=5", "no_reply:at_capture=-1"])
def test_nonsense_schedules_are_refused(spec):
    with pytest.raises(ValueError):
        parse_fault(spec)
