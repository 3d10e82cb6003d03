"""Writing and reading session directories: round trips, locking, resuming, damage."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import charz
from charz.archive import ArchiveWriter, Capture, Channel, read_archive
from charz.waveform import Waveform
from charz.archive import _atomic
from charz.errors import ArchiveCorrupt, ArchiveError

pytestmark = pytest.mark.unit


def make_capture(rng: np.random.Generator, *, dtypes=("int16",), n=None, step=0, sample_interval_s=2e-6,
                 **changes) -> Capture:
    n = int(rng.integers(0, 3000)) if n is None else n
    channels = []
    for i, dtype in enumerate(dtypes):
        info = np.iinfo(dtype)
        codes = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
        w = Waveform(codes, float(rng.uniform(1e-6, 1e-2)), float(rng.integers(-50, 50)), float(rng.normal()),
                     sample_interval_s, -1e-4, unit="AV"[i % 2], source=f"CH{i + 1}", code_min=int(info.min),
                     code_max=int(info.max))
        channels.append(Channel(["current", "voltage", "aux"][i], w))
    fields = dict(
        step=step, op="write", size_bytes=4096 * int(rng.integers(1, 64)), offset_bytes=int(rng.integers(0, 2**30)),
        repeat=0, time_reference="request", channels=channels,
        warnings=[], host={"t_request_ns": int(rng.integers(0, 2**62))}, extra={},
    )
    return Capture(**{**fields, **changes})


def with_index(cap: Capture, index: int) -> Capture:
    return dataclasses.replace(cap, index=index)


def write_session(path: Path, caps: list[Capture], metadata: dict | None = None) -> Path:
    with ArchiveWriter.create(path, metadata or {"drive": {"model": "test"}}) as writer:
        for cap in caps:
            writer.append(cap)
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(20260131)


# -- round trip ---------------------------------------------------------------------


def test_round_trip_int8_int16_several_channels_bit_for_bit(tmp_path, rng):
    caps = [
        make_capture(rng, dtypes=("int8",)),
        make_capture(rng, dtypes=("int16", "int8")),
        make_capture(rng, dtypes=("int16", "int16", "int8"), step=None, op="idle", warnings=["clipped at 127"]),
        make_capture(rng, dtypes=("int8",), n=0),
    ]
    path = write_session(tmp_path / "s", caps)
    archive = read_archive(path)
    assert [c.index for c in archive.captures] == [0, 1, 2, 3]
    for got, sent in zip(archive.captures, caps):
        assert got == with_index(sent, got.index)
        for a, b in zip(got.channels, sent.channels):
            assert a.waveform.codes.dtype == b.waveform.codes.dtype and a.waveform.codes.tobytes() == b.waveform.codes.tobytes()
    assert read_archive(path, verify=False).captures == archive.captures
    assert archive.damaged == ()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    metadata=st.dictionaries(
        st.text(max_size=8).filter(lambda k: k not in ("schema", "created_utc", "tool", "drive", "bench", "plan")),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10),
            lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
            max_leaves=10,
        ),
        max_size=5,
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_round_trip_arbitrary_metadata(tmp_path_factory, metadata, seed):
    path = tmp_path_factory.mktemp("meta") / "s"
    rng = np.random.default_rng(seed)
    caps = [make_capture(rng, dtypes=("int16", "int8")[: 1 + seed % 2]) for _ in range(2)]
    write_session(path, caps, {"drive": {"model": "Q Pro"}, "bench": {"scope": "MSO44"}, **metadata})
    archive = read_archive(path)
    meta = dict(archive.metadata)
    assert meta.pop("schema") == "charz.archive/1"
    assert meta.pop("tool") == {"name": "charz", "version": charz.__version__}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", meta.pop("created_utc"))
    assert meta == {"drive": {"model": "Q Pro"}, "bench": {"scope": "MSO44"}, "plan": {}, **metadata}
    assert archive.captures == tuple(with_index(c, i) for i, c in enumerate(caps))


def test_big_endian_codes_are_stored_little_endian(tmp_path):
    codes = np.array([1, -2, 300, -32768, 32767], dtype=">i2")
    ch = Channel("current", Waveform(codes, 1.0, 0, 0, 2e-6, -1e-4, unit="A", source="CH1", code_min=-32768,
                                     code_max=32767))
    path = write_session(tmp_path / "s", [make_capture(np.random.default_rng(0), channels=[ch])])
    stored = np.load(path / "captures" / "000000.current.npy")
    assert stored.dtype.str == "<i2" and stored.tolist() == codes.tolist()


def test_layout_on_disk_is_the_documented_one(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng, dtypes=("int16", "int8"))])
    assert sorted(os.listdir(path)) == ["captures", "session.json", "session.lock"]
    assert sorted(os.listdir(path / "captures")) == ["000000.current.npy", "000000.json", "000000.voltage.npy"]
    record = json.loads((path / "captures" / "000000.json").read_text())
    assert record["schema"] == "charz.capture/1"
    assert [c["dtype"] for c in record["channels"]] == ["int16", "int8"]


# -- writer rules -------------------------------------------------------------------


def test_second_writer_is_refused_with_a_hint(tmp_path, rng):
    with ArchiveWriter.create(tmp_path / "s", {}) as writer:
        with pytest.raises(ArchiveError, match=f"pid {os.getpid()}") as info:
            ArchiveWriter.open_append(tmp_path / "s")
        assert "Wait" in info.value.hint
        writer.append(make_capture(rng))
        assert len(read_archive(tmp_path / "s").captures) == 1  # readers need no lock
    with ArchiveWriter.open_append(tmp_path / "s") as writer:
        assert writer.next_index == 1


def test_create_refuses_what_is_not_fresh(tmp_path, rng):
    write_session(tmp_path / "archive", [make_capture(rng)])
    with pytest.raises(ArchiveError, match="archive already") as info:
        ArchiveWriter.create(tmp_path / "archive", {})
    assert "charz resume" in info.value.hint  # the command a user types, not the API

    (tmp_path / "file").write_text("x")
    with pytest.raises(ArchiveError, match="not a directory"):
        ArchiveWriter.create(tmp_path / "file", {})

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(ArchiveError, match="notes.txt"):
        ArchiveWriter.create(foreign, {})
    assert os.listdir(foreign) == ["notes.txt"]  # nothing written into it, not even a lock


def test_create_accepts_the_leftovers_of_a_killed_create(tmp_path, rng):
    path = tmp_path / "s"
    (path / "captures").mkdir(parents=True)
    (path / "session.lock").write_text("12345\n")
    (path / ".session.json.0123456789abcdef.tmp").write_text('{"sche')
    write_session(path, [make_capture(rng)])
    assert len(read_archive(path).captures) == 1


def test_open_append_refuses_a_non_archive_without_touching_it(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(ArchiveError, match="not a charz archive"):
        ArchiveWriter.open_append(tmp_path / "plain")
    assert os.listdir(tmp_path / "plain") == []
    with pytest.raises(ArchiveError, match="not a charz archive"):
        ArchiveWriter.open_append(tmp_path / "missing")


def test_append_checks_index_and_closed_state(tmp_path, rng):
    writer = ArchiveWriter.create(tmp_path / "s", {})
    assert writer.append(with_index(make_capture(rng), 0)) == 0
    with pytest.raises(ValueError, match="next index .* is 1"):
        writer.append(with_index(make_capture(rng), 5))
    with pytest.raises(TypeError):
        writer.append({"op": "write"})
    writer.close()
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.append(make_capture(rng))
    with pytest.raises(ValueError, match="closed"):
        writer.update_metadata(note="x")
    assert [c.index for c in read_archive(tmp_path / "s").captures] == [0]


def test_failed_append_leaves_the_archive_as_it_was(tmp_path, rng, monkeypatch):
    writer = ArchiveWriter.create(tmp_path / "s", {})
    writer.append(make_capture(rng))
    real = _atomic.write_atomic

    def disk_full_at_commit(path, write, **kw):
        if path.suffix == ".json":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, write, **kw)

    monkeypatch.setattr(_atomic, "write_atomic", disk_full_at_commit)
    with pytest.raises(ArchiveError, match="disk full: no space left for capture 1") as info:
        writer.append(make_capture(rng, dtypes=("int16", "int8")))
    assert "intact" in info.value.hint
    assert sorted(os.listdir(tmp_path / "s" / "captures")) == ["000000.current.npy", "000000.json"]
    monkeypatch.setattr(_atomic, "write_atomic", real)
    assert writer.append(make_capture(rng)) == 1  # the same index again
    writer.close()
    assert len(read_archive(tmp_path / "s").captures) == 2


def test_commit_that_cannot_be_synced_keeps_the_capture_and_its_index(tmp_path, rng, monkeypatch):
    writer = ArchiveWriter.create(tmp_path / "s", {})
    real_write, real_sync = _atomic.write_atomic, _atomic.fsync_dir
    renamed = []

    def write_atomic(path, write, **kw):
        result = real_write(path, write, **kw)
        renamed.append(path.name)
        return result

    def fsync_dir(path):
        if "000000.json" in renamed:
            raise OSError(errno.EIO, "Input/output error")
        real_sync(path)

    monkeypatch.setattr(_atomic, "write_atomic", write_atomic)
    monkeypatch.setattr(_atomic, "fsync_dir", fsync_dir)
    with pytest.raises(ArchiveError, match="could not be made durable"):
        writer.append(make_capture(rng))
    monkeypatch.undo()
    assert writer.next_index == 1  # index 0 is taken: the record is visible
    assert len(read_archive(tmp_path / "s").captures) == 1
    assert writer.append(make_capture(rng)) == 1
    writer.close()


def test_update_metadata_is_persisted_and_checked(tmp_path):
    with ArchiveWriter.create(tmp_path / "s", {"plan": {"sizes": [4096]}}) as writer:
        new = writer.update_metadata(finished_utc="2026-01-31T14:00:00Z", drive={"wcache": False})
        assert new["finished_utc"] == "2026-01-31T14:00:00Z"
        with pytest.raises(ValueError, match="created_utc"):
            writer.update_metadata(created_utc="never")
        with pytest.raises(ValueError, match="JSON"):
            writer.update_metadata(bad=object())
    meta = read_archive(tmp_path / "s").metadata
    assert meta["finished_utc"] == "2026-01-31T14:00:00Z" and meta["drive"] == {"wcache": False}
    assert meta["plan"] == {"sizes": [4096]}
    assert not [n for n in os.listdir(tmp_path / "s") if n.endswith(".tmp")]


# -- resuming -----------------------------------------------------------------------


def test_resume_after_interrupted_capture_removes_only_its_orphans(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng, step=0), make_capture(rng, step=0), make_capture(rng, step=1)])
    captures = path / "captures"
    # What a kill during capture 3 leaves: a renamed channel file and a temp file.
    (captures / "000003.current.npy").write_bytes(b"half")
    (captures / ".000003.voltage.npy.0123456789abcdef.tmp").write_bytes(b"half")
    (path / ".session.json.fedcba9876543210.tmp").write_bytes(b"{")
    # Not ours to delete: an unreferenced file of a committed index, a user's note.
    (captures / "000001.extra.npy").write_bytes(b"keep")
    (captures / "notes.txt").write_text("keep")

    assert len(read_archive(path).captures) == 3  # readers ignore orphans
    with ArchiveWriter.open_append(path) as writer:
        assert writer.next_index == 3
        assert writer.step_counts == {0: 2, 1: 1}
        assert writer.completed_steps() == {0, 1}
        assert writer.completed_steps(2) == {0}
        assert sorted(p.name for p in writer.discarded) == [
            ".000003.voltage.npy.0123456789abcdef.tmp", ".session.json.fedcba9876543210.tmp", "000003.current.npy",
        ]
        assert writer.append(make_capture(rng, step=1)) == 3
        assert writer.step_counts == {0: 2, 1: 2}
    assert (captures / "000001.extra.npy").exists() and (captures / "notes.txt").exists()
    assert [c.index for c in read_archive(path).captures] == [0, 1, 2, 3]


def test_resume_refuses_damage_unless_tolerant(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng, n=100) for _ in range(4)])
    middle = path / "captures" / "000001.current.npy"
    middle.write_bytes(middle.read_bytes()[:-1])
    with pytest.raises(ArchiveCorrupt, match="000001.current.npy") as info:
        ArchiveWriter.open_append(path)
    assert "tolerant=True" in info.value.hint
    with ArchiveWriter.open_append(path, tolerant=True) as writer:
        assert writer.next_index == 4
        assert [(d.index, d.path.name) for d in writer.damaged] == [(1, "000001.current.npy")]
        writer.append(make_capture(rng))
    assert middle.exists()  # left as it was
    archive = read_archive(path, tolerant=True)
    assert [c.index for c in archive.captures] == [0, 2, 3, 4]


def test_resume_verifies_the_newest_capture_in_full(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng, n=100) for _ in range(2)])
    newest = path / "captures" / "000001.current.npy"
    data = bytearray(newest.read_bytes())
    data[-1] ^= 0xFF  # same size, other content: only the hash sees it
    newest.write_bytes(bytes(data))
    with pytest.raises(ArchiveCorrupt, match="SHA-256") as info:
        ArchiveWriter.open_append(path)
    assert "000001.current.npy" in str(info.value) and "moving it" in info.value.hint
    with ArchiveWriter.open_append(path, tolerant=True) as writer:
        assert writer.next_index == 2  # never overwrites a commit record, damaged or not


def test_resume_never_reuses_the_index_of_a_damaged_newest_record(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng) for _ in range(3)])
    (path / "captures" / "000002.json").write_text("{not json")
    with pytest.raises(ArchiveCorrupt, match="000002.json"):
        ArchiveWriter.open_append(path)
    with ArchiveWriter.open_append(path, tolerant=True) as writer:
        assert writer.next_index == 3
        assert [d.index for d in writer.damaged] == [2]
        assert not writer.discarded  # 000002's channel files are not orphans


# -- reading damage -----------------------------------------------------------------


def test_gap_is_reported_naming_the_missing_file(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng) for _ in range(5)])
    for i in (1, 2):
        (path / "captures" / f"00000{i}.json").unlink()
    with pytest.raises(ArchiveCorrupt, match=r"000001\.json: missing .*capture 4 exists") as info:
        read_archive(path)
    assert "tolerant=True" in info.value.hint
    archive = read_archive(path, tolerant=True)
    assert [c.index for c in archive.captures] == [0, 3, 4]
    assert [(d.path.name, d.index) for d in archive.damaged] == [("000001.json", 1)]
    assert "1…2" in archive.damaged[0].reason


def test_damaged_middle_capture_fails_strict_and_is_skipped_tolerantly(tmp_path, rng):
    caps = [make_capture(rng, dtypes=("int16", "int8"), n=200) for _ in range(4)]
    path = write_session(tmp_path / "s", caps)
    victim = path / "captures" / "000002.voltage.npy"
    data = bytearray(victim.read_bytes())
    data[150] ^= 0x01
    victim.write_bytes(bytes(data))
    with pytest.raises(ArchiveCorrupt, match="000002.voltage.npy: SHA-256") as info:
        read_archive(path)
    assert info.value.path == victim
    archive = read_archive(path, tolerant=True)
    assert archive.captures == tuple(with_index(caps[i], i) for i in (0, 1, 3))
    assert [(d.path, d.index) for d in archive.damaged] == [(victim, 2)]
    assert len(read_archive(path, verify=False).captures) == 4  # only the hash could tell


def test_damaged_session_json_still_lets_captures_be_salvaged(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng) for _ in range(2)])
    (path / "session.json").write_text('{"schema": "charz.archive/1"}')
    with pytest.raises(ArchiveCorrupt, match="session.json: session has no 'created_utc'"):
        read_archive(path)
    archive = read_archive(path, tolerant=True)
    assert archive.metadata == {} and len(archive.captures) == 2
    assert [(d.path.name, d.index) for d in archive.damaged] == [("session.json", None)]


def test_missing_captures_dir_and_missing_session_json(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng)])
    shutil.rmtree(path / "captures")
    with pytest.raises(ArchiveCorrupt, match="captures: missing"):
        read_archive(path)
    assert read_archive(path, tolerant=True).damaged[0].path == path / "captures"
    path = write_session(tmp_path / "t", [make_capture(rng)])
    (path / "session.json").unlink()
    with pytest.raises(ArchiveCorrupt, match="session.json: missing"):
        read_archive(path)


def test_newer_archive_asks_for_an_upgrade(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng)])
    record = json.loads((path / "captures" / "000000.json").read_text())
    record["schema"] = "charz.capture/2"
    (path / "captures" / "000000.json").write_text(json.dumps(record))
    with pytest.raises(ArchiveError, match="newer") as info:
        read_archive(path)
    assert not isinstance(info.value, ArchiveCorrupt) and "upgrade" in info.value.hint


def test_non_canonical_record_name_is_reported_not_skipped(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng)])
    shutil.copy(path / "captures" / "000000.json", path / "captures" / "0.json")
    with pytest.raises(ArchiveCorrupt, match=r"0\.json: not a commit record name"):
        read_archive(path)


@pytest.mark.parametrize("where", ["missing", "file"])
def test_not_a_session_directory(tmp_path, where):
    target = tmp_path / where
    if where == "file":
        target.write_text("x")
    with pytest.raises(ArchiveError, match=str(target)):
        read_archive(target)



def test_same_kind_channels_come_back_as_rows_of_one_read_only_array(tmp_path, rng):
    # The analysis measures a batch as one array; the reader hands it one per kind of channel
    # (name, dtype, length, sample interval) instead of an array per file.
    caps = [make_capture(rng, dtypes=("int16", "int8"), n=300) for _ in range(3)]
    caps.append(make_capture(rng, n=300, sample_interval_s=4e-6))  # another kind: its own array
    caps.append(make_capture(rng, n=120))                           # another length: its own array
    archive = read_archive(write_session(tmp_path / "s", caps))
    assert archive.captures == tuple(with_index(c, i) for i, c in enumerate(caps))
    current = [c.channel("current").waveform.codes for c in archive.captures]
    base = current[0].base
    assert base is not None and base.shape == (3, 300)
    assert all(current[i].base is base for i in range(3))
    np.testing.assert_array_equal(base, np.stack([c.channel("current").waveform.codes for c in caps[:3]]))
    assert current[3].base is not base and current[4].base is not base
    assert archive.captures[0].channel("voltage").waveform.codes.base is not base
    with pytest.raises(ValueError):
        current[1][0] = 0  # read-only, as a view of the file's bytes would be


def test_a_channel_file_longer_than_recorded_is_damage_named_by_its_size(tmp_path, rng):
    path = write_session(tmp_path / "s", [make_capture(rng, n=64) for _ in range(2)])
    victim = path / "captures" / "000001.current.npy"
    victim.write_bytes(victim.read_bytes() + b"\0\0")
    with pytest.raises(ArchiveCorrupt, match=rf"000001.current.npy: .*{victim.stat().st_size}") as info:
        read_archive(path)
    assert info.value.path == victim
    assert [c.index for c in read_archive(path, tolerant=True).captures] == [0]
