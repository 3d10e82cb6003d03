"""Ctrl-C, SIGTERM and SIGHUP during a session: stop cleanly once, at once the second time.

The first signal raises :class:`Stopped` (a KeyboardInterrupt) in the session's
thread: the request in flight finishes or is abandoned, the capture being committed
is committed, the bench and the drive are restored, and the CLI prints how many
captures are kept and how to go on (exit 130 for SIGINT, 143 for SIGTERM, 129 for
SIGHUP, as a shell reports a process killed by that signal).  SIGHUP — the terminal or
the ssh session closed — is a stop like SIGTERM: the drive is restored all the same,
though the line may have no terminal left to reach.  A second signal while that clean-up runs
exits at once: the archive's commit protocol makes even that safe (a kill loses at
most the capture in flight).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path


class Stopped(KeyboardInterrupt):
    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


@contextlib.contextmanager
def stoppable():
    """Within: SIGINT / SIGTERM / SIGHUP raise :class:`Stopped` once, then exit at once."""
    state = {"stopping": False}

    def handler(signum, frame):
        if state["stopping"]:
            with contextlib.suppress(OSError, ValueError):  # no terminal left (SIGHUP)
                sys.stderr.write("stopped at once (second signal); continue with charz resume\n")
                sys.stderr.flush()
            os._exit(128 + signum)
        state["stopping"] = True
        raise Stopped(signum)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def kept_line(out) -> str:
    """``stopped: N of M captures kept; continue with: charz resume DIR``."""
    from charz.session import captures_kept  # lazy: numba, numpy, scipy

    if not (Path(out) / "session.json").exists():
        return "stopped before the session began: nothing was written to the drive or the archive"
    try:
        kept, total = captures_kept(out)
        counts = f"{kept} of {total} captures kept"
    except Exception:  # noqa: BLE001 - the line must print even if the archive is not there yet
        counts = "every completed capture is kept"
    return f"stopped: {counts}; continue with: charz resume {out}"
