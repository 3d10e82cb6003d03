"""The bench a session runs on: a scope, an O_DIRECT target, and (mock only) the physics link.

:class:`RealBench` and :class:`MockBench` are data: one of them goes into the archive's
metadata so that ``charz resume`` can rebuild the same bench (:func:`bench_from_dict`).
:class:`Bench` is the live thing: a connected scope, an open O_DIRECT descriptor, and for
the mock bench the control channel that tells the simulated drive about each host I/O (on
a real bench the physics does that).
"""

from __future__ import annotations

import contextlib
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, Callable, ClassVar, Union

from charz.errors import UsageError
from charz.workload import open_direct

MOCK = "mock"
REAL = "real"
DEFAULT_SCOPE_TIMEOUT_S = 2.0
SCOPE_TIMEOUT_RANGE_S = (0.1, 600.0)  # below: a reply over TCP cannot come back; above: a hung scope

_RAIL_V_ASSUMED = "assumed: 5 V SATA rail, as 003 multiplies by 5 V"


@dataclass(frozen=True, kw_only=True)
class _Bench:
    """What both benches are rebuilt from (stored in ``session.json`` under ``bench``)."""

    kind: ClassVar[str]
    target: str  # block device or scratch file for the O_DIRECT requests
    target_is_scratch: bool = False
    visa_library: str = "@auto"
    channel: str = "CH1"
    rail_v: float = 5.0
    rail_v_origin: str = _RAIL_V_ASSUMED
    write_sample_interval_s: float = 2e-6
    read_sample_interval_s: float = 4e-6
    record_length: int = 10_000
    pretrigger_fraction: float = 0.1
    trigger_timeout_s: float = 2.0
    # How long one reply from the scope may take before it counts as lost (a glitch the
    # retry policy rides out); --scope-timeout.  Slow scopes or links need longer.
    scope_timeout_s: float = DEFAULT_SCOPE_TIMEOUT_S
    standby: bool = True

    def __post_init__(self) -> None:
        check_scope_timeout(self.scope_timeout_s)

    def to_dict(self) -> dict[str, Any]:
        """The stored form: every field of both benches, the other's at its default, in the
        order archives have always held them (readers of older archives see no change)."""
        mine = asdict(self)
        stored = {"kind": self.kind}
        for name in STORED_ORDER:
            stored[name] = mine.get(name, _other_kinds_default(name))
        stored["mock_faults"] = list(stored["mock_faults"])
        return stored


@dataclass(frozen=True, kw_only=True)
class RealBench(_Bench):
    """A real scope (``scope_resource``, a VISA address) on a real drive or a scratch file."""

    kind: ClassVar[str] = REAL
    scope_resource: str | None = None  # None is refused, with what to give

    def __post_init__(self) -> None:
        if not self.scope_resource:
            raise UsageError("a real bench needs a scope", hint="give --scope RESOURCE (see charz scope check)")
        super().__post_init__()


@dataclass(frozen=True, kw_only=True)
class MockBench(_Bench):
    """The simulated drive of ``preset`` behind a mock scope on loopback (made fresh each time)."""

    kind: ClassVar[str] = MOCK
    preset: str | None = None  # None is refused, with what to give
    seed: int = 0
    write_cache: bool = False
    dialect: str = "tek"
    mock_faults: tuple[str, ...] = ()
    mock_time_scale: float = 0.0  # 1.0: the mock takes as long to acquire as a real scope would

    def __post_init__(self) -> None:
        if not self.preset:
            raise UsageError("a mock bench needs a preset", hint="give --preset NAME (charz simulate --list)")
        super().__post_init__()


#: Either bench, as a session holds it.
BenchConfig = Union[RealBench, MockBench]

#: The stored fields in the order archives hold them; a field of the other kind of bench is
#: stored at its default (a real bench's seed 0, a mock bench's scope_resource None).
STORED_ORDER = (
    "target", "target_is_scratch", "scope_resource", "visa_library", "channel", "rail_v", "rail_v_origin",
    "write_sample_interval_s", "read_sample_interval_s", "record_length", "pretrigger_fraction",
    "trigger_timeout_s", "scope_timeout_s", "preset", "seed", "standby", "write_cache", "dialect",
    "mock_faults", "mock_time_scale",
)


def _other_kinds_default(name: str) -> Any:
    """The default the bench that has field ``name`` gives it (the defaults live in one place)."""
    for cls in (RealBench, MockBench):
        for f in fields(cls):
            if f.name == name and f.default is not MISSING:
                return f.default
    return None


def bench_from_dict(d: dict[str, Any]) -> BenchConfig:
    """The bench an archive's ``bench`` section describes (other keys there are ignored)."""
    kinds = {REAL: RealBench, MOCK: MockBench}
    kind = d.get("kind") if isinstance(d, dict) else None
    if kind is None:
        raise UsageError("the stored bench description is malformed (it names no kind of bench)",
                         hint="the archive's session.json was edited or damaged")
    if kind not in kinds:
        raise UsageError(f"bench kind must be {MOCK!r} or {REAL!r}")
    cls = kinds[kind]
    known = {f.name for f in fields(cls)}
    try:
        kwargs = {k: v for k, v in d.items() if k in known}
        if cls is MockBench:
            kwargs["mock_faults"] = tuple(kwargs.get("mock_faults", ()))
        return cls(**kwargs)
    except TypeError as exc:
        raise UsageError(f"the stored bench description is malformed ({exc})",
                         hint="the archive's session.json was edited or damaged") from None


def check_scope_timeout(seconds: Any) -> float:
    """The scope reply timeout in seconds, or a UsageError that says the range."""
    lo, hi = SCOPE_TIMEOUT_RANGE_S
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not lo <= seconds <= hi:
        raise UsageError(f"the scope timeout (--scope-timeout) must be {lo:g} to {hi:g} seconds, not {seconds!r}",
                         hint=f"the time one scope reply may take; {DEFAULT_SCOPE_TIMEOUT_S:g} s unless given")
    return float(seconds)


@dataclass
class Bench:
    """A live bench.  Close it (or use ``with``) to release the scope, the target and the mock."""

    config: BenchConfig
    scope: Any  # charz.scope.Scope
    io: Any  # charz.workload.DirectIO (None until open_target)
    notify: Callable[[str, int, int], None] | None = None  # mock: tell the simulated drive
    scope_identity: str = ""
    replay: Callable[[list[tuple[str, int, int]]], None] | None = None  # mock: rebuild drive state
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def open_target(self, *, span_bytes: int, max_request_bytes: int, claim=None) -> None:
        """Open the O_DIRECT target (a scratch file is created at ``span_bytes``)."""
        create = span_bytes if self.config.target_is_scratch else None
        self.io = self._stack.enter_context(open_direct(self.config.target, claim=claim, create_size_bytes=create,
                                                        max_request_bytes=max_request_bytes))

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> "Bench":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_scope(config: BenchConfig, *, mock=None) -> Bench:
    """Reach and identify the scope (``*IDN?``); the target is not opened yet.

    A session calls this before it asks to confirm anything or touches the drive: a wrong
    VISA address then costs nothing but the message.  ``Bench.io`` is None until
    :meth:`Bench.open_target`.  For a mock bench, ``mock`` is a context-manager factory
    taking the config and yielding a link with ``resource``, ``notify`` and ``replay``
    (``charz.sim.mock_bench``; the CLI passes it, so runtime code never imports the
    simulator).
    """
    from charz.scope import open_scope  # lazy: pyvisa
    from charz.scope import RetryingScope, open_with_retry  # lazy: pyvisa

    stack = contextlib.ExitStack()
    try:
        notify = replay = None
        if isinstance(config, MockBench):
            if mock is None:
                raise UsageError("a mock bench needs the simulator", hint="run it through charz characterize --mock")
            link = stack.enter_context(mock(config))
            resource, notify, replay = link.resource, link.notify, link.replay
        else:
            resource = config.scope_resource
        # The scope link's retry policy (charz.scope._retry): a glitch at connection or in
        # an idempotent operation is ridden out once; what it did is in scope.retries.
        setup_notes: list[str] = []

        def reopen():
            return open_scope(resource, visa_library=config.visa_library, timeout_s=config.scope_timeout_s)

        driver = open_with_retry(reopen, resource=resource, note=setup_notes.append)
        scope = RetryingScope(driver, reopen)
        scope.retries.extend(setup_notes)
        scope.total_retries += len(setup_notes)
        stack.callback(scope.close)
        return Bench(config, scope, None, notify, str(scope.identity), replay, stack)
    except BaseException:
        stack.close()
        raise


def open_bench(config: BenchConfig, *, span_bytes: int, max_request_bytes: int, claim=None, mock=None) -> Bench:
    """Connect the scope (:func:`connect_scope`), then open the target (:meth:`Bench.open_target`).

    ``claim`` is the guard's exclusive hold when the target is a block device.
    """
    bench = connect_scope(config, mock=mock)
    try:
        bench.open_target(span_bytes=span_bytes, max_request_bytes=max_request_bytes, claim=claim)
    except BaseException:
        bench.close()
        raise
    return bench
