"""Hypothesis runs the same examples every time by default, so a test run — CI's above all —
does not fail on the day a new example happens to be drawn.  ``HYPOTHESIS_PROFILE=explore``
draws new ones, more of them; put what it finds into the test as an ``@example``."""

import glob
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def _import_every_charz_module() -> None:
    """Derandomized is not enough for the same examples everywhere: Hypothesis (6.131+) also
    draws, now and then, a number written in the source of the project's modules *already
    imported* (its "local constants"; tests/ itself is left out).  Which charz modules are
    imported when a property test runs depends on what was collected and run before it in
    that process — a subset, the whole suite, one xdist worker or the other — so the same
    test drew other examples there (test_analysis_property's rate failed in subsets only;
    it now draws its drives with numpy from the case number alone).
    Importing every charz module first makes that pool the same in every run."""
    import importlib
    import pkgutil

    import charz

    for module in pkgutil.walk_packages(charz.__path__, "charz."):
        if module.name.rsplit(".", 1)[-1] != "__main__":  # charz/__main__.py runs the CLI
            importlib.import_module(module.name)


_import_every_charz_module()


def pytest_configure(config: pytest.Config) -> None:
    """Compile charz's numba kernels once, before any test (and before xdist's workers start).

    numba caches them beside the sources, so a fresh clone (CI) compiles them on first use:
    about 30 s of CPU.  Left to the tests, each xdist worker and each charz child process
    that gets there first compiles the same kernels at once, and a test with a short
    timeout (the mock scope's 5 s control channel) can time out while its child compiles.
    Kernels already cached load in a fraction of a second."""
    if hasattr(config, "workerinput") or config.option.collectonly:
        return  # an xdist worker: the controller has done it
    from charz.cli._warm import warm_kernels

    warm_kernels()


class BlockNode(NamedTuple):
    """A real block device node standing in for the drive (unpacks as path, major, minor)."""

    path: str
    major: int
    minor: int

    @property
    def rdev(self) -> int:
        return os.makedev(self.major, self.minor)


@pytest.fixture
def node() -> BlockNode:
    """The first /dev/loopN block node; the test is skipped where there is none."""
    for path in sorted(glob.glob("/dev/loop[0-9]*")):
        st = os.stat(path)
        if stat.S_ISBLK(st.st_mode):
            return BlockNode(path, os.major(st.st_rdev), os.minor(st.st_rdev))
    pytest.skip("no /dev/loopN block node to stand in for a drive")


@pytest.fixture(scope="session")
def short_dir():
    """Makes directories with short paths, for tests that hold charz's output to 80 columns
    while it prints a path: under xdist tmp_path sits one level deeper
    (``.../pytest-N/popen-gwN/test_name0``), enough to tip a line with a path over 80."""
    made: list[str] = []

    def make() -> Path:
        made.append(tempfile.mkdtemp(prefix="cz-"))
        return Path(made[-1])

    yield make
    for path in made:
        shutil.rmtree(path, ignore_errors=True)
