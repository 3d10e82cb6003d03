"""Small pieces the sub-commands share: progress bars and option parsing."""

from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console(highlight=False, soft_wrap=True)


@contextmanager
def progress_bar(total: int, description: str, *, enabled: bool = True):
    """A progress bar with ETA on stderr; a no-op object when disabled (scripts, --json)."""
    if not enabled:
        class _Null:
            def advance(self, n: int = 1) -> None:
                pass

            def describe(self, text: str) -> None:
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
        console=Console(stderr=True),
        transient=False,
    )
    with progress:
        task = progress.add_task(description, total=total)

        class _Bar:
            def advance(self, n: int = 1) -> None:
                progress.advance(task, n)

            def describe(self, text: str) -> None:
                progress.update(task, description=text)

        yield _Bar()


@contextmanager
def damage_hints(*, reading: bool):
    """Word the archive's damage hints (written for library callers) as commands.

    ``reading``: the command has ``--tolerant`` (analyze, report); otherwise it appends
    (resume), and appending needs the damaged capture moved aside first.
    """
    from pathlib import Path

    from charz.errors import ArchiveCorrupt

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
