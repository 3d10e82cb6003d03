"""SIGKILL a writer process at random moments: no committed capture is ever lost or damaged.

The child (``_archive_child.py``, run with this interpreter) appends captures
whose content is a pure function of their index and reports each commit; the
parent kills it, checks the archive strictly, and starts it again to resume.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from charz.archive import ArchiveWriter, read_archive
from charz.archive._atomic import is_temp_name

sys.path.insert(0, str(Path(__file__).parent))
from _archive_child import digest, make_capture  # noqa: E402

pytestmark = pytest.mark.system

CHILD = Path(__file__).with_name("_archive_child.py")
SEED = 4242
KILLS = 30


def start(path: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(CHILD), str(path), str(SEED), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


# Bytes read from a child's stdout but not yet handed out as lines.  select() on a buffered
# text stream misses lines that an earlier readline() already pulled into Python's buffer
# (a child that says "ready" and "stalled" at once left the second unseen for 30 s), so
# lines are assembled here from raw reads of the pipe.
_PENDING: dict[int, bytes] = {}


def wait_for_line(proc: subprocess.Popen, prefix: str, timeout_s: float = 30.0) -> str:
    buf = _PENDING.get(proc.pid, b"")
    deadline = time.monotonic() + timeout_s
    while b"\n" not in buf:
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, remaining)) if remaining > 0 else ([], [], [])
        chunk = os.read(proc.stdout.fileno(), 65536) if ready else b""
        if not chunk:
            break
        buf += chunk
    raw, sep, rest = buf.partition(b"\n")
    _PENDING[proc.pid] = rest if sep else buf
    line = raw.decode() + "\n" if sep else ""
    if not line.startswith(prefix):
        proc.kill()
        _, err = proc.communicate(timeout=10)
        pytest.fail(f"child did not say {prefix!r} (got {line!r}); stderr:\n{err}")
    return line


def kill(proc: subprocess.Popen) -> list[str]:
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    out = _PENDING.pop(proc.pid, b"").decode() + out
    assert proc.returncode == -signal.SIGKILL, f"child ended on its own ({proc.returncode}):\n{err}"
    return out.splitlines()


def committed(lines: list[str]) -> dict[int, str]:
    return {int(i): sha for tag, i, sha in (line.split() for line in lines if line.startswith("committed "))}


def orphans(path: Path) -> list[str]:
    """Files in captures/ that no commit record accounts for."""
    captures = path / "captures"
    names = set(os.listdir(captures))
    records = {n for n in names if n.endswith(".json") and not is_temp_name(n)}
    listed = {f"{n[:-5]}.{ch}.npy" for n in records for ch in ("current", "voltage")}
    return sorted(n for n in names if n not in records and n not in listed)


def test_sigkill_at_random_moments_never_loses_a_committed_capture(tmp_path):
    rng = random.Random(SEED)
    path = tmp_path / "session"
    reported: dict[int, str] = {}
    expected: dict[int, str] = {}  # index -> digest of make_capture(SEED, index), computed once
    count_before = 0
    kills_mid_capture = 0

    for cycle in range(KILLS):
        proc = start(path)
        wait_for_line(proc, "ready")
        # From "ready" on the child only appends, so any delay lands in or between appends.
        time.sleep(rng.uniform(0.0, 0.12))
        lines = kill(proc)
        new = committed(lines)
        reported.update(new)
        kills_mid_capture += bool(orphans(path))

        archive = read_archive(path)  # strict and verifying: any damage raises here
        indices = [c.index for c in archive.captures]
        assert indices == list(range(len(indices))), indices
        assert len(indices) >= count_before, "a capture disappeared"
        if reported:
            # Every reported commit is there; at most one more (killed between append and print).
            assert max(reported) < len(indices) <= max(reported) + 2
        for cap in archive.captures:
            if cap.index not in expected:
                expected[cap.index] = digest(make_capture(SEED, cap.index))
            got = digest(cap)
            assert got == expected[cap.index], f"capture {cap.index} differs after kill {cycle}"
            assert reported.get(cap.index, got) == got
        count_before = len(indices)

    # The last resume cleans up; what remains is a contiguous run, no duplicates, no orphans.
    with ArchiveWriter.open_append(path) as writer:
        assert writer.next_index == count_before
    archive = read_archive(path)
    assert [c.index for c in archive.captures] == list(range(count_before))
    assert len({digest(c) for c in archive.captures}) == count_before
    assert orphans(path) == [] and not [n for n in os.listdir(path) if is_temp_name(n)]
    assert count_before >= KILLS, f"only {count_before} captures in {KILLS} runs: the kills came too early to test much"
    # With fsyncs dominating each append, most kills land inside one; none doing so would
    # mean this test no longer exercises the interesting window.
    assert kills_mid_capture >= 1
    print(f"{count_before} captures, {kills_mid_capture}/{KILLS} kills left an interrupted capture")


@pytest.mark.parametrize("stage", ["npy", "json"])
def test_kill_inside_the_commit_protocol(tmp_path, stage):
    """Deterministic: stop exactly before a channel file's rename / before the commit record."""
    path = tmp_path / "session"
    proc = start(path)
    wait_for_line(proc, "ready")
    wait_for_line(proc, "committed 0")
    kill(proc)
    n_before = len(read_archive(path).captures)

    proc = start(path, f"--stall={stage}")
    wait_for_line(proc, "ready")
    wait_for_line(proc, "stalled")
    kill(proc)

    left = orphans(path)
    if stage == "npy":
        assert left and all(is_temp_name(n) for n in left), left
    else:
        assert left and all(n.startswith(f"{n_before:06d}.") and n.endswith(".npy") for n in left), left
    archive = read_archive(path)
    assert [c.index for c in archive.captures] == list(range(n_before))

    with ArchiveWriter.open_append(path) as writer:
        assert writer.next_index == n_before
        assert sorted(p.name for p in writer.discarded) == left
        writer.append(make_capture(SEED, n_before))
    assert orphans(path) == []
    assert digest(read_archive(path).captures[-1]) == digest(make_capture(SEED, n_before))
