"""Hypothesis runs the same examples every time by default, so a test run — CI's above all —
does not fail on the day a new example happens to be drawn.  ``HYPOTHESIS_PROFILE=explore``
draws new ones, more of them; put what it finds into the test as an ``@example``."""

import glob
import os
import stat
from typing import NamedTuple

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


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
