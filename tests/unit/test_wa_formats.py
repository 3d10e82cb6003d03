"""Pure parts of the WA path: sigrok session metadata, pulse placement, count checks, the WA archive."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.analysis._pulses import PulseCounter, PulseWindows, count_pulses
from charz.analysis._wa_checks import check_counts, program_modes
from charz.archive._wa import WaArchive, read_wa_archive
from charz.errors import ArchiveCorrupt, ArchiveError, LogicError
from charz.logic import SessionMeta, parse_metadata, place_pulses, read_session_chunks, render_chunks, write_session
from charz.logic._srzip import format_metadata, format_samplerate, parse_samplerate

pytestmark = pytest.mark.unit


# -- sigrok session files -------------------------------------------------------------------------

@given(st.integers(1, 10**10), st.lists(st.text("ABCDRBxyz_0123", min_size=1, max_size=6), min_size=1, max_size=8))
def test_metadata_round_trip(rate, probes):
    meta = SessionMeta(float(rate), tuple(probes))
    assert parse_metadata(format_metadata(meta)) == meta
    assert parse_samplerate(format_samplerate(rate)) == rate


@pytest.mark.parametrize("text", ["", "[device 1]\nsamplerate=1 MHz\n", "[device 1]\ntotal probes=x\n",
                                  "[device 1]\ntotal probes=1\nsamplerate=fast\n", "no sections at all"])
def test_malformed_metadata_is_a_logic_error(text):
    with pytest.raises(LogicError, match="metadata"):
        parse_metadata(text)


def test_session_file_round_trip_any_chunking(tmp_path):
    rng = np.random.default_rng(1)
    data = (rng.random(100_003) < 0.5).astype(np.uint8)
    path = tmp_path / "x.sr"
    n = write_session(path, np.array_split(data, 7), SessionMeta(1e6, ("RB",)), chunk_bytes=4096)
    meta, chunks = read_session_chunks(path)
    assert n == data.size and np.array_equal(np.concatenate(list(chunks)), data)


def test_not_a_zip_is_a_logic_error(tmp_path):
    (tmp_path / "x.sr").write_bytes(b"hello")
    with pytest.raises(LogicError, match="not a sigrok session"):
        read_session_chunks(tmp_path / "x.sr")


# -- placing and rendering pulses -------------------------------------------------------------------

def test_overlapping_operations_are_moved_not_merged_and_widths_kept():
    # three operations the simulator put on top of each other
    t = place_pulses([0.0, 100.0, 150.0], [900.0, 30.0, 1500.0], 1e6, min_gap_us=5, lead_us=10)
    assert t.moved == 2
    assert (t.ends - t.starts).tolist() == [900, 30, 1500]
    assert np.all(t.starts[1:] - t.ends[:-1] >= 5)
    c = count_pulses(np.concatenate(list(render_chunks(t, 333))), 1e6)
    assert (c.programs, c.reads) == (2, 1)


def test_long_idle_is_shortened_without_touching_pulses():
    t = place_pulses([0.0, 10e6], [500.0, 500.0], 1e6, max_gap_us=1000, lead_us=0, tail_us=100)
    assert t.shortened_gaps == 1 and t.total_samples == 5 + 500 + 1000 + 500 + 100  # lead ≥ min gap
    assert count_pulses(np.concatenate(list(render_chunks(t))), 1e6).programs == 2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e5), st.floats(1, 3000)), max_size=60), st.integers(1, 5000))
def test_rendered_train_counts_what_was_placed(ops, chunk):
    starts = np.array([s for s, _ in ops], dtype=float)
    widths = np.array([w for _, w in ops], dtype=float)
    t = place_pulses(starts, widths, 1e6, min_gap_us=5, lead_us=10, tail_us=10)
    rb = np.concatenate(list(render_chunks(t, chunk))) if t.total_samples else np.zeros(0, np.uint8)
    c = PulseCounter(1e6, PulseWindows(glitch_us=0.5))
    c.feed(rb)
    w = t.ends - t.starts
    assert c.counts.pulses == len(ops)
    assert c.counts.programs == int(np.sum((w > 200) & (w < 2200)))


# -- count checks ------------------------------------------------------------------------------------

def _counts(widths, rate=1e6, windows=PulseWindows()):
    rb = np.ones(sum(widths) + 20 * len(widths) + 100, np.uint8)
    pos = 10
    for w in widths:
        rb[pos:pos + w] = 0
        pos += w + 20
    return count_pulses(rb, rate, windows)


def test_two_comparable_modes_say_nothing():
    # MLC lower and upper pages: two modes of comparable size are what programs look like
    c = _counts([300] * 50 + [1800] * 50)
    modes = program_modes(c)
    assert [n for _, _, n in modes] == [50, 50]
    chk = check_counts(c, settled=True, settle_s=0)
    assert chk.trusted and not chk.warnings and chk.erases_in_window == 0


def test_a_small_mode_at_the_top_of_the_window_is_counted_apart_as_erases():
    # 200 programs in two modes, 5 pulses of 2000 µs: one per 40 programs, above them all
    c = _counts([400] * 100 + [1200] * 100 + [2000] * 5)
    chk = check_counts(c, settled=True, settle_s=0)
    assert chk.trusted and chk.erases_in_window == 5 and chk.erase_mode_us[0] == 2000
    assert "counted apart as erases" in chk.warnings[0]


def test_a_small_mode_in_the_middle_is_named():
    c = _counts([400] * 200 + [900] * 5 + [1600] * 200)
    chk = check_counts(c, settled=True, settle_s=0)
    assert chk.trusted and chk.erases_in_window == 0
    assert any("small mode of 5 pulses at 900" in w for w in chk.warnings)


def test_erases_just_above_the_window_are_not_a_cut_mode_and_get_no_widen_hint():
    rng = np.random.default_rng(5)
    progs = list(rng.integers(201, 2199, 1000))
    erases = list(rng.integers(2210, 2400, 60))
    chk = check_counts(_counts(progs + erases), settled=True, settle_s=0)
    assert chk.trusted, chk.errors
    assert any("taken as erases outside the window" in w for w in chk.warnings)
    # the same erases reaching down into the window: an error naming them, no widening
    inside = list(rng.integers(2000, 2199, 60))
    chk = check_counts(_counts(progs + erases + inside), settled=True, settle_s=0)
    assert not chk.trusted and "erases reach into the program window" in chk.errors[0]
    assert "widen" not in " ".join(chk.errors)


def test_samplerate_that_cannot_tell_a_glitch_from_a_gap_is_an_error_naming_a_samplerate():
    c = _counts([90] * 10, rate=100e3)  # 900 µs programs
    chk = check_counts(c, settled=True, settle_s=0, min_gap_us=10)
    assert not chk.trusted and "200 kS/s or more" in chk.errors[0]
    assert check_counts(_counts([225] * 10, rate=250e3), settled=True, settle_s=0, min_gap_us=10).trusted


def test_mode_cut_by_the_window_is_an_error():
    c = _counts([2000] * 40 + [2250] * 40)  # a mode straddling b = 2200
    chk = check_counts(c, settled=True, settle_s=0)
    assert not chk.trusted and "cuts a mode" in chk.errors[0]


def test_no_program_and_not_settled_are_errors():
    chk = check_counts(_counts([30] * 10), settled=False, settle_s=5)
    assert not chk.trusted
    assert any("no R/B low pulse" in e for e in chk.errors) and any("settle" in e for e in chk.errors)


# -- the WA archive -------------------------------------------------------------------------------------

def test_archive_commit_resume_and_debris(tmp_path):
    root = tmp_path / "wa"
    with WaArchive.create(root, {"plan": [1, 2], "windows": {}, "samplerate_hz": 1.0, "settle_s": 0}) as a:
        a.commit(0, {"x": 1}, fio_json='{"fio": 1}')
        with pytest.raises(ArchiveError, match="another charz"):
            WaArchive.resume(root)  # locked while the writer works
    (root / "steps" / ".0001.json.0123456789abcdef.tmp").write_text("half")  # a kill mid-write
    with WaArchive.resume(root) as a:
        assert set(a.records) == {0} and a.records[0]["fio_json_file"] == "0000.fio.json"
        assert not list((root / "steps").glob(".*.tmp"))
        a.commit(1, {"x": 2})
        with pytest.raises(ArchiveError, match="already"):
            a.commit(1, {"x": 3})
    settings, recs = read_wa_archive(root)
    assert settings["schema"] == "charz-wa/1" and [r["x"] for r in recs.values()] == [1, 2]
    assert json.loads((root / "steps" / "0000.fio.json").read_text()) == {"fio": 1}


def test_archive_refuses_a_non_empty_directory_and_reports_damage(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(ArchiveError, match="not empty"):
        WaArchive.create(tmp_path / "full", {})
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"
    root = tmp_path / "wa"
    WaArchive.create(root, {"plan": []}).close()
    (root / "steps" / "0000.json").write_text("{trunc")
    with pytest.raises(ArchiveCorrupt, match="0000.json"):
        read_wa_archive(root)


def test_an_erase_group_is_decided_whole_even_when_sparse():
    # 600 programs (two modes), erases 1/16 of them in two clumps 150 µs apart: too many to be
    # counted apart without the block size (1/32) — untrustworthy naming erases, never half counted
    progs = [400] * 300 + [1300] * 300
    erases = [1850] * 20 + [2050] * 18
    chk = check_counts(_counts(progs + erases), settled=True, settle_s=0)
    assert not chk.trusted and chk.erases_in_window == 0 and chk.errors[0].startswith("erases? 38 pulses")
    chk = check_counts(_counts(progs + erases), settled=True, settle_s=0, pages_per_block=16)
    assert chk.trusted and chk.erases_in_window == 38


def test_a_sparse_program_tail_is_not_taken_for_erases():
    rng = np.random.default_rng(2)
    progs = list(rng.integers(250, 850, 75)) + list(rng.integers(1150, 2100, 75))
    chk = check_counts(_counts(progs), settled=True, settle_s=0)
    assert chk.trusted and chk.erases_in_window == 0, chk


def test_a_few_erases_just_above_the_edge_bound_what_may_hide_inside():
    # Erases of 1.5-3 ms (000 §4.3), one per 32 programs: half of them lie inside the
    # window, too few above its edge for the excess test; the count is ~1.5 % high.
    rng = np.random.default_rng(7)
    progs = list(rng.integers(250, 850, 300)) + list(rng.integers(1150, 2100, 300))
    erases = list(rng.integers(1500, 3000, 19))
    chk = check_counts(_counts(progs + erases), settled=True, settle_s=0)
    assert not chk.trusted and "erases may reach into the program window" in chk.errors[0], chk
    assert "widen" not in " ".join(chk.errors)
    # told the block (32 programs) and all 19 erases seen above the window: nothing hides
    above = list(rng.integers(2210, 3000, 19))
    assert check_counts(_counts(progs + above), settled=True, settle_s=0, pages_per_block=32).trusted


def test_a_program_joined_to_an_erase_across_a_sub_glitch_gap_is_not_trusted():
    # 000's counter takes a high gap under the glitch time for ringing: a program (900 µs)
    # then an erase 1 µs later (an erase needs only its command cycles) read as one 3.9 ms
    # pulse, the program lost — once per block of 32 programs is 3 % low
    rb = np.ones(400_000, np.uint8)
    pos, lost = 10, 0
    for k in range(200):
        rb[pos:pos + 900] = 0
        pos += 900
        if k % 32 == 31:
            rb[pos + 1:pos + 3001] = 0   # 1 µs high, then a 3 ms erase
            pos += 3001
            lost += 1
        pos += 50
    c = count_pulses(rb[:pos + 100], 1e6)
    assert c.programs == 200 - lost and c.merged == lost
    chk = check_counts(c, settled=True, settle_s=0)
    assert not chk.trusted and any("may have joined" in e for e in chk.errors), chk
    # ringing inside programs only (the blip's pulse stays program-wide): nothing said
    rb2 = np.ones(200_000, np.uint8)
    for k in range(100):
        rb2[100 + k * 1000:100 + k * 1000 + 900] = 0
        rb2[100 + k * 1000 + 400] = 1
    c2 = count_pulses(rb2, 1e6)
    assert c2.programs == 100 and c2.high_glitches == 100 and c2.merged == 0
    assert check_counts(c2, settled=True, settle_s=0).trusted


def test_ringing_inside_erases_as_often_as_inside_programs_is_not_taken_for_joins():
    # every program and every erase (3 ms, one per 16 programs) rings once, 300 µs in: the
    # erases' blips begin program-wide stretches, as often as ringing explains
    rb = np.ones(600_000, np.uint8)
    pos = 10
    for k in range(200):
        for w in (900,) + ((3000,) if k % 16 == 15 else ()):
            rb[pos:pos + w] = 0
            rb[pos + 300] = 1
            pos += w + 50
    c = count_pulses(rb[:pos + 100], 1e6)
    assert c.programs == 200 and c.programs_blipped == 200 and c.merged == c.erases == 12
    chk = check_counts(c, settled=True, settle_s=0)
    assert chk.trusted, chk.errors
    assert any("ringing" in x for x in chk.warnings)
