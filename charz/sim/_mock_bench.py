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

from charz.sim._model import load_preset
from charz.sim._ssd import SimulatedBench
from charz.sim.scope_server import MockScopeControl, MockScopeServer


@dataclass(frozen=True)
class MockLink:
    resource: str
    notify: Callable[[str, int, int], None]
    replay: Callable[[list[tuple[str, int, int]]], None]


@contextlib.contextmanager
def mock_bench(config):
    """Start the simulated drive behind a mock scope on loopback for a session's ``MockBench``."""
    source = SimulatedBench(load_preset(config.preset), seed=config.seed, standby=config.standby,
                            write_cache=config.write_cache)
    with MockScopeServer(source, dialect=config.dialect, faults=list(config.mock_faults),
                         time_scale=config.mock_time_scale) as server, MockScopeControl(server.control_port) as control:
        yield MockLink(server.resource, lambda op, size, offset: control.io(op, size, offset), source.replay)
