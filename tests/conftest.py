"""Hypothesis runs the same examples every time by default, so a test run — CI's above all —
does not fail on the day a new example happens to be drawn.  ``HYPOTHESIS_PROFILE=explore``
draws new ones, more of them; put what it finds into the test as an ``@example``."""

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
