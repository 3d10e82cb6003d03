"""Damaged files never crash the reader: ArchiveError naming the file, or a correct result.

Each example copies a small real archive, damages one file (truncate, flip bits,
delete, overwrite with random bytes or with another file of the archive, replace
with a directory) and reads it strictly and tolerantly.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from charz.archive import ArchiveWriter, Capture, Channel, read_archive
from charz.waveform import Waveform
from charz.archive._format import parse_capture_file_name, parse_channel_file_name
from charz.errors import ArchiveCorrupt, ArchiveError

pytestmark = pytest.mark.unit


def _capture(rng, n, dtypes):
    channels = []
    for name, dtype in zip(("current", "voltage"), dtypes):
        info = np.iinfo(dtype)
        codes = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
        w = Waveform(codes, 1e-3, 0.5, 0.0, 2e-6, -2e-5, unit="A" if name == "current" else "V", source="CH1",
                     code_min=int(info.min), code_max=int(info.max))
        channels.append(Channel(name, w))
    return Capture(
        step=1, op="write", size_bytes=8192, offset_bytes=0, repeat=0, time_reference="request", channels=channels, host={"t_ns": 5},
    )


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "s"
    rng = np.random.default_rng(7)
    with ArchiveWriter.create(path, {"drive": {"model": "fuzz"}, "plan": {"sizes": [8192]}}) as writer:
        writer.append(_capture(rng, 300, (np.int16, np.int8)))
        writer.append(_capture(rng, 50, (np.int8,)))
        writer.append(_capture(rng, 0, (np.int16,)))
    (path / "session.lock").unlink()  # not part of what is read
    files = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())
    return path, files, read_archive(path)


def _index_of(rel: str) -> int | None:
    name = Path(rel).name
    parsed = parse_capture_file_name(name)
    if parsed is None and parse_channel_file_name(name):
        parsed = parse_channel_file_name(name)[0]
    return parsed


mutations = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1, exclude_max=True)),
    st.tuples(st.just("flip"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("delete")),
    st.tuples(st.just("random"), st.binary(max_size=300)),
    st.tuples(st.just("swap"), st.integers(0, 100)),
    st.tuples(st.just("directory")),
)


def _damage(root: Path, rel: str, mutation: tuple, files: list[str]) -> bool:
    """Apply ``mutation`` to ``root/rel``; False if it would not change anything."""
    path = root / rel
    data = path.read_bytes()
    kind = mutation[0]
    if kind == "truncate":
        path.write_bytes(data[: math.floor(mutation[1] * len(data))])
    elif kind == "flip":
        if not data:
            return False
        buf = bytearray(data)
        buf[math.floor(mutation[1] * len(buf))] ^= mutation[2]
        path.write_bytes(bytes(buf))
    elif kind == "delete":
        path.unlink()
    elif kind == "random":
        if mutation[1] == data:
            return False
        path.write_bytes(mutation[1])
    elif kind == "swap":
        other = (root / files[mutation[1] % len(files)]).read_bytes()
        if other == data:
            return False
        path.write_bytes(other)
    elif kind == "directory":
        path.unlink()
        path.mkdir()
    return True


# Repeatable by default (tests/conftest.py); HYPOTHESIS_PROFILE=explore searches further.
@settings(max_examples=150, deadline=None)
@given(target=st.integers(0, 100), mutation=mutations, verify=st.booleans())
# A flipped bit that turns the .npy header's '{' into 'z': numpy's parser raised tokenize.TokenError.
@example(target=5, mutation=("flip", 10 / 128, 1), verify=False)
def test_damaged_file_gives_archive_error_naming_it_or_a_sound_result(base, target, mutation, verify):
    root0, files, original = base
    rel = files[target % len(files)]
    name = Path(rel).name
    damaged_index = _index_of(rel)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "s"
        shutil.copytree(root0, root)
        if not _damage(root, rel, mutation, files):
            return

        try:
            strict, strict_error = read_archive(root, verify=verify), None
        except ArchiveError as exc:  # any other exception fails the test
            strict, strict_error = None, exc
        if strict_error is not None:
            assert name in str(strict_error), (rel, mutation, strict_error)
            assert strict_error.hint
        elif verify and rel.endswith(".npy"):
            pytest.fail(f"{rel} damaged by {mutation} but read back without error")

        # Shown by --hypothesis-show-statistics: which damage was caught how.
        outcome = type(strict_error).__name__ if strict_error else "read"
        event(f"{mutation[0]} {Path(rel).suffix} verify={verify}: {outcome}")
        try:
            tolerant = read_archive(root, verify=verify, tolerant=True)
        except ArchiveError as exc:
            # Only what no salvage can help: a session.json that is not this format's.
            assert name == "session.json" and not isinstance(exc, ArchiveCorrupt), (rel, mutation, exc)
            return

    by_index = {c.index: c for c in tolerant.captures}
    for cap in original.captures:  # every capture the damage did not touch is intact
        if cap.index != damaged_index:
            assert by_index.get(cap.index) == cap, (rel, mutation)
    if strict_error is None:
        assert tolerant.damaged == () and tolerant.captures == strict.captures
    elif isinstance(strict_error, ArchiveCorrupt) or name != "session.json":
        assert tolerant.damaged, (rel, mutation)
        assert {d.index for d in tolerant.damaged} == {damaged_index}, (rel, mutation, tolerant.damaged)
        assert damaged_index not in by_index


def test_the_fuzzer_reaches_both_outcomes(base):
    """Guard against a fuzz test that silently stopped damaging anything."""
    root0, files, _ = base
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "s"
        shutil.copytree(root0, root)
        _damage(root, "captures/000001.current.npy", ("flip", 0.99, 1), files)
        with pytest.raises(ArchiveCorrupt, match="000001.current.npy"):
            read_archive(root)
        assert len(read_archive(root, verify=False).captures) == 3
