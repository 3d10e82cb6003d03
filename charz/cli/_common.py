"""Small pieces the sub-commands share: progress bars and option parsing."""

from __future__ import annotations

import importlib.util
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from charz.errors import ArchiveCorrupt, CharzError

console = Console(highlight=False, soft_wrap=True, emoji=False)  # SCPI ":A:" and paths are no emoji codes

# -1 with -q/--quiet, 0 by default, 1+ with -v/--verbose (set by charz.cli._conventions for
# every command before it runs).
verbosity = 0


# With --json, stdout carries the JSON document alone: the command runs with stdout sent to
# stderr (log lines, tables) and writes the document here (charz.cli._conventions sets it).
json_stream = None


def emit_json(text: str) -> None:
    """Write the command's --json document to the real stdout."""
    stream = json_stream or sys.stdout
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


# Set when numba compiled something in this process (a first run after an install).
compiled_now = False


def note(text: str) -> None:
    """A progress or log line on stderr (what the command is doing); silent with -q."""
    if verbosity >= 0:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


@contextmanager
def progress_bar(total: int, description: str, *, enabled: bool = True):
    """A progress bar with ETA on stderr; a no-op object when disabled (scripts, --json, -q)."""
    if not enabled or verbosity < 0:
        class _Null:
            def advance(self, n: int = 1) -> None:
                pass

            def describe(self, text: str) -> None:
                pass

            def total(self, n: int) -> None:
                pass

        yield _Null()
        return
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=Console(stderr=True, emoji=False),
        transient=False,
    )
    with progress:
        task = progress.add_task(description, total=total)

        class _Bar:
            def advance(self, n: int = 1) -> None:
                progress.advance(task, n)

            def describe(self, text: str) -> None:
                progress.update(task, description=text)

            def total(self, n: int) -> None:
                progress.update(task, total=n)

        yield _Bar()


@contextmanager
def damage_hints(*, reading: bool):
    """Word the archive's damage hints (written for library callers) as commands.

    ``reading``: the command has ``--tolerant`` (analyze, report); otherwise it appends
    (resume), and appending needs the damaged capture moved aside first.
    """

    try:
        yield
    except ArchiveCorrupt as exc:
        if Path(exc.path).name == "session.json":
            raise  # the session's own metadata: --tolerant (for captures) does not help; its hint says so
        if reading:
            exc.hint = ("the other captures are probably intact: add --tolerant to skip the damaged ones "
                        "(each is listed); keep a copy of the damaged file")
        else:
            path = Path(exc.path)
            exc.hint = (f"if {path.name} belongs to the newest capture, move that capture's .json and .npy "
                        f"files out of {path.parent} and resume again (charz takes that capture anew); "
                        "to use what is intact now: charz analyze SESSION --tolerant")
        raise


def announce_compiles() -> None:
    """Say on stderr when numba compiles charz's analysis kernel, and how long it took.

    The kernel is compiled the first time it runs after an install (about 10 s on two
    cores) and cached (``cache=True``: beside the package, in ``~/.cache/numba`` when that is
    read-only, or in ``NUMBA_CACHE_DIR``); later runs load it in a fraction of a second and
    print nothing.  Without this line that first run sat silent.  numba's own compile
    events say when compiling really happens, so a cached run stays quiet.  Importing numba
    costs about a second, so the listener is installed when something else imports numba
    (commands that never analyse never pay for it).  ``benchmarks/first_run.py`` measures.
    """
    if "numba" in sys.modules:
        _listen_to_compiles()
    elif not any(isinstance(f, _AfterNumba) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterNumba())


class _AfterNumba:
    """A meta-path finder that steps aside for the real numba and registers the listener once it is imported."""

    def find_spec(self, name, path=None, target=None):
        if name != "numba":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _listen_to_compiles()

        spec.loader.exec_module = exec_module
        return spec


def _listen_to_compiles() -> None:
    from numba.core import event  # lazy: numba

    class Notice(event.Listener):
        depth = 0
        started = 0.0
        said = False

        def on_start(self, ev) -> None:
            if self.depth == 0:
                self.started = time.perf_counter()
                if not self.said and verbosity >= 0:
                    sys.stderr.write("compiling charz's analysis kernel (numba; the first run after an install "
                                     "only,\nthen cached) ...\n")
                    sys.stderr.flush()
            self.depth += 1

        def on_end(self, ev) -> None:
            self.depth -= 1
            if self.depth == 0:
                global compiled_now
                compiled_now = True
            if self.depth == 0 and not self.said:
                self.said = True
                if verbosity >= 0:
                    sys.stderr.write(f"compiled in {time.perf_counter() - self.started:.1f} s\n")
                sys.stderr.flush()

    event.register("numba:compile", Notice())


# soft_wrap: a long path in a message stays one piece, to copy from a terminal or a CI log.
err_console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)  # SCPI ":A:" is no emoji


def report_error(exc: CharzError) -> int:
    # escape: a message or hint is text, not markup ("pip install 'charz[usb]'" keeps its brackets)
    err_console.print(f"[bold red]error:[/] {escape(exc.message)}")
    if exc.hint:
        err_console.print(f"[yellow]what to do:[/] {escape(exc.hint)}")
    if verbosity > 0:  # -v: the layer below's code and the chain of causes
        if exc.code is not None:
            err_console.print(f"code: {escape(str(exc.code))}")
        cause = exc.__cause__ or exc.__context__
        while cause is not None:
            err_console.print(f"cause: {type(cause).__name__}: {escape(str(cause))}")
            cause = cause.__cause__ or cause.__context__
    return exc.exit_code
