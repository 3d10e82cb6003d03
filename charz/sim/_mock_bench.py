"""The mock bench as the session sees a real one: a scope resource, and the physics link.

``charz characterize --mock`` hands :func:`mock_bench` to the session, which never
imports the simulator itself: the session gets a VISA resource to connect its real
driver to, a ``notify`` hook the capture loop calls right before each O_DIRECT
request (on a real bench the drive's own current does that), and ``replay`` to
rebuild the simulated drive's state when a session is resumed.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from charz.sim._model import load_preset
from charz.sim._ssd import SimulatedBench, SimulatedSSD
from charz.sim.scope_server import MockScopeControl, MockScopeServer


@dataclass(frozen=True)
class MockLink:
    resource: str
    notify: Callable[[str, int, int], None]
    replay: Callable[[list[tuple[str, int, int]]], None]


def _load_renderer(model) -> None:
    """Render a throwaway request once, so numba loads (or, after an install, compiles) the
    renderer's machine code here and not inside the session's first ``notify``: that call
    waits on the control channel's 5 s reply timeout, and loading took 3 s and more on a
    busy machine (a TimeoutError traceback).  The bench's own drive and noise are untouched."""

    ssd = SimulatedSSD(model)
    rng = np.random.default_rng(0)
    ssd.render(ssd.request("write", model.geometry.page_size_bytes, 0, rng), -1e-4, 2e-6, 200, rng)


@contextlib.contextmanager
def mock_bench(config):
    """Start the simulated drive behind a mock scope on loopback for a session's ``MockBench``."""
    model = load_preset(config.preset)
    _load_renderer(model)
    source = SimulatedBench(model, seed=config.seed, standby=config.standby,
                            write_cache=config.write_cache)
    with MockScopeServer(source, dialect=config.dialect, faults=list(config.mock_faults),
                         time_scale=config.mock_time_scale) as server, MockScopeControl(server.control_port) as control:
        yield MockLink(server.resource, lambda op, size, offset: control.io(op, size, offset), source.replay)
