"""The driver skeleton: public methods check arguments and state, then call ``_do_x``.

Vendor leaves (``_tek.py``, ``_keysight.py``) implement the ``_do_*`` steps; the
policies (deadlines, resynchronisation after a timeout, record checks, retry) live
here and in ``_acquire.py`` so every family behaves the same way.

Resynchronisation
-----------------
After a timeout, a damaged block or a reply that belongs to another query, a late
answer may still be on its way.  The next call first discards pending input, sends
``*IDN?`` and reads until the identity seen at connect comes back, so replies line up
with queries again (bounded by the I/O timeout).

Example
-------
>>> from charz.scope import TekDPO, ReplayTransport                     # doctest: +SKIP
>>> scope = TekDPO(); scope.attach(ReplayTransport(pairs))             # doctest: +SKIP
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np

from charz.errors import (
    ScopeError,
    ScopeInstrumentError,
    ScopeProtocolError,
    ScopeTimeout,
    ScopeTransferError,
    TriggerTimeout,
    UsageError,
)
from charz.scope._acquire import Expectation, Preamble, fetch_record, poll, settings_changed
from charz.scope._models import ScopeModel, find_model, load_models
from charz.scope._record import Record
from charz.scope._settings import ScopeSettings
from charz.scope._surface import read_backs
from charz.scope._transport import Transport, open_transport
from charz.scope._wire import Identity, ScopeEvent, parse_idn, parse_nr1, reply_value

__all__ = ["ScopeDriver"]

F = TypeVar("F", bound=Callable[..., Any])

# IEEE 488.2 ESR bits: query error, device error, execution error, command error.
ESR_ERROR_BITS = 0x04 | 0x08 | 0x10 | 0x20
ESR_POWER_ON = 0x80


def _operation(what: str) -> Callable[[F], F]:
    """Wrap a public method: connected? resynchronise if needed; mark dirty on trouble."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def wrapper(self: ScopeDriver, *args: Any, **kwargs: Any) -> Any:
            self._require_connected(what)
            if self._dirty:
                self._resync()
            try:
                return method(self, *args, **kwargs)
            except (ScopeTimeout, ScopeTransferError, ScopeProtocolError):
                self._dirty = True
                raise

        return wrapper  # type: ignore[return-value]

    return decorate


# Polling for the end of a sequence every 2 ms at most: a record is 20-40 ms long at charz's
# sample intervals, and a coarser poll would add up to half its own interval to every capture.
WAIT_POLL_MAX_S = 0.002


class ScopeDriver:
    """Common behaviour of all charz scope drivers (implements :class:`~charz.scope.Scope`).

    Parameters
    ----------
    model : ScopeModel, optional
        Limits to validate against; chosen from ``*IDN?`` when omitted.
    headers : bool
        Tek only: ask for headers in replies (HEADer ON) so each reply can be checked
        against its query.  Default True.
    io_timeout_s : float
        Timeout of one query; waits and block transfers have their own bounds.
    models_dir : path, optional
        Where the ``instruments/*.toml`` files are.
    clock, sleep : callables
        Injected for tests (default ``time.monotonic`` / ``time.sleep``).
    """

    family: ClassVar[str] = ""
    vendor: ClassVar[str] = ""

    def __init__(self, *, model: ScopeModel | None = None, headers: bool = True,
                 io_timeout_s: float = 2.0, models_dir: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if not io_timeout_s > 0:
            raise UsageError(f"io_timeout_s must be positive, not {io_timeout_s!r}")
        self.headers = bool(headers)
        self.io_timeout_s = float(io_timeout_s)
        self._model = model
        self._models_dir = models_dir
        self._clock = clock
        self._sleep = sleep
        self._transport: Transport | None = None
        self._identity: Identity | None = None
        self._idn_raw = ""
        self._settings: ScopeSettings | None = None
        self._dirty = False

    # ------------------------------------------------------------ properties

    @property
    def resource(self) -> str:
        return self._transport.resource if self._transport is not None else "(not connected)"

    @property
    def model(self) -> ScopeModel:
        if self._model is None:
            raise UsageError("the driver is not connected yet (no model known)")
        return self._model

    @property
    def identity(self) -> Identity | None:
        return self._identity

    @property
    def settings(self) -> ScopeSettings | None:
        """The settings in force since the last successful :meth:`configure`."""
        return self._settings

    # ------------------------------------------------------------ connection

    def connect(self, resource: str, visa_library: str = "@auto", *,
                timeout_s: float | None = None) -> Identity:
        """Open ``resource`` (see :func:`~charz.scope.open_transport`) and attach to it."""
        if not isinstance(resource, str) or not resource.strip():
            raise UsageError(f"resource must be a VISA resource string, not {resource!r}",
                             hint="e.g. TCPIP::192.168.1.20::4000::SOCKET")
        transport = open_transport(resource, visa_library=visa_library,
                                   timeout_s=timeout_s or self.io_timeout_s)
        try:
            return self.attach(transport)
        except ScopeError:
            transport.close()
            raise

    def attach(self, transport: Transport, identity: Identity | None = None,
               idn_raw: str | None = None) -> Identity:
        """Use an already open transport (a replay in tests, or one opened by the registry)."""
        self._transport = transport
        self._dirty = False
        if identity is None:
            idn_raw = self._query("*IDN?")
            identity = parse_idn(idn_raw)
        self._idn_raw = (idn_raw or str(identity)).strip()
        if self._model is None:
            self._model = find_model(identity.manufacturer, identity.model,
                                     load_models(self._models_dir))
        if self._model is None or not self._model.matches(identity.manufacturer, identity.model) \
                or self._model.family != self.family:
            raise ScopeProtocolError(
                f"{transport.resource} is a {identity.manufacturer} {identity.model}, which the "
                f"{type(self).__name__} driver does not drive",
                hint="use charz.scope.open_scope() to pick the driver from *IDN?, or add an "
                     "instruments/*.toml description for this model",
                code="wrong-instrument",
            )
        self._identity = identity
        self._settings = None
        self._do_prepare()
        return identity

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def __enter__(self) -> ScopeDriver:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------ the protocol

    @_operation("identifying")
    def identify(self) -> Identity:
        return parse_idn(self._query("*IDN?"))

    @_operation("configuring")
    def configure(self, settings: ScopeSettings) -> ScopeSettings:
        if not isinstance(settings, ScopeSettings):
            raise UsageError(f"configure needs ScopeSettings, not {type(settings).__name__}")
        self._validate(settings)
        self._settings = None
        self._do_configure(settings)
        problems = self._read_back(settings)
        if problems:
            raise ScopeInstrumentError(
                f"{self.resource}: the scope did not take the settings: " + "; ".join(problems),
                hint="the scope rounds or refuses some values; change the request to one the "
                     "model offers, or check whether a probe / option limits it",
                code="not-applied",
            )
        self._raise_on_errors("configuring")
        self._settings = settings
        return settings

    @_operation("arming")
    def arm(self, timeout_s: float | None = None) -> None:
        self._require_configured()
        self._do_arm()
        limit = self.io_timeout_s if timeout_s is None else timeout_s
        if poll(self._do_is_armed, limit, clock=self._clock, sleep=self._sleep) is None:
            raise ScopeTimeout(f"{self.resource}: the scope did not become ready to trigger "
                               f"within {limit:g} s", hint="check the scope is not in a menu or "
                               "stuck in a previous acquisition; run charz scope check",
                               code="not-armed")

    @_operation("waiting for the trigger")
    def wait(self, timeout_s: float) -> float:
        if not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
            raise UsageError(f"timeout_s must be a positive number, not {timeout_s!r}")
        settings = self._require_configured()
        elapsed = poll(self._do_is_done, float(timeout_s), clock=self._clock, sleep=self._sleep,
                       max_interval_s=min(WAIT_POLL_MAX_S, float(timeout_s) / 10))
        if elapsed is not None:
            return elapsed
        self._do_stop()
        problems = self._read_back(settings)
        if problems:
            raise settings_changed(self.resource, problems)
        raise TriggerTimeout(
            f"{self.resource}: no trigger within {timeout_s:g} s on {settings.trigger_channel} "
            f"({settings.trigger_slope} edge through {settings.trigger_level:g} "
            f"{settings.probe_units}, {settings.trigger_mode} mode)",
            hint="check that the I/O reached the drive and that the trigger level lies between "
                 "the idle and the active current (charz scope check shows both)",
            code="no-trigger",
        )

    @_operation("forcing a trigger")
    def force_trigger(self) -> None:
        self._do_force()

    @_operation("stopping")
    def stop(self) -> None:
        self._do_stop()

    @_operation("fetching the record")
    def fetch(self, *, max_clipped_fraction: float = 0.0) -> Record:
        if not isinstance(max_clipped_fraction, (int, float)) or not 0.0 <= max_clipped_fraction <= 1.0:
            raise UsageError(f"max_clipped_fraction must be within 0 ... 1, not {max_clipped_fraction!r}")
        self._require_configured()
        return fetch_record(self, float(max_clipped_fraction))

    @_operation("reading the error queue")
    def errors(self) -> tuple[ScopeEvent, ...]:
        return self._do_read_events()

    # ------------------------------------------------------------ shared steps

    def _require_connected(self, what: str) -> Transport:
        if self._transport is None:
            raise UsageError(f"cannot do {what}: the scope is not connected",
                             hint="call connect() or use charz.scope.open_scope()")
        return self._transport

    def _require_configured(self) -> ScopeSettings:
        if self._settings is None:
            raise UsageError("the scope is not configured", hint="call configure() first")
        return self._settings

    def _write(self, message: str) -> None:
        self._require_connected("a write").write(message)

    def _query(self, message: str, timeout_s: float | None = None) -> str:
        transport = self._require_connected("a query")
        reply = transport.query(message, timeout_s=timeout_s)
        if self._idn_raw and reply.strip() == self._idn_raw and not message.lstrip().upper().startswith("*IDN"):
            # The late answer to an earlier *IDN? (the one a reconnect sent, answered after
            # its timeout): not this query's reply, which follows it.  Parsed as this
            # query's number it read "number is not a number: 'TEKTRONIX,...'".
            notes = getattr(self, "retry_notes", None)
            if notes is not None:
                notes.append(f"scope link: a stale *IDN? reply came before the reply to {message.strip()}; "
                             "discarded it")
            reply = transport.read(timeout_s=timeout_s)
        return reply

    def _resync(self) -> None:
        transport = self._require_connected("resynchronising")
        transport.discard_input()
        transport.write("*IDN?")
        deadline = self._clock() + self.io_timeout_s
        while True:
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise ScopeTimeout(f"{self.resource}: replies do not line up with queries "
                                   "any more and the scope did not answer *IDN? in time",
                                   hint="disconnect and connect again; power-cycle the scope "
                                        "if it persists", code="resync-failed")
            if transport.read(timeout_s=remaining).strip() == self._idn_raw:
                self._dirty = False
                return

    def _read_back(self, settings: ScopeSettings) -> list[str]:
        """Read back every setting the driver declares with a ``read_back`` and say which
        differ from ``settings`` (one line each; every reading is taken, so one error lists
        them all)."""
        problems = []
        for control in read_backs(type(self)):
            check = control.read_back
            assert check is not None
            x = check.x(settings) if check.x is not None else None
            got = check.read(self, x) if check.read is not None else control.__get__(self).get(x)
            problem = check.problem(got, settings)
            if problem is not None:
                problems.append(problem)
        return problems

    def _read_esr(self) -> int:
        return self._parse_esr(self._query("*ESR?"))

    def _parse_esr(self, reply: str) -> int:
        return parse_nr1(reply_value(reply, "*ESR"), "*ESR?")

    def _after_block(self, after: str) -> None:
        """What follows the block in the fetch's reply must be a clean ``*ESR?`` answer."""
        try:
            esr = self._parse_esr(after)
        except ScopeProtocolError as exc:
            raise ScopeTransferError(
                f"{self.resource}: the waveform block was longer than announced "
                f"(bytes after it: {exc.message})",
                hint="fetch again; if it persists the scope's firmware or the link is faulty",
                code="block-too-long",
            ) from exc
        self._check_esr(esr, "fetching the record")

    def _check_esr(self, esr: int, what: str) -> None:
        if esr & ESR_POWER_ON:
            raise settings_changed(self.resource, ["the scope reports a power-on since the last check"])
        if esr & ESR_ERROR_BITS:
            self._raise_events(self._do_read_events(after_esr=True), what, esr)

    def _raise_on_errors(self, what: str) -> None:
        self._check_esr(self._read_esr(), what)

    def _raise_events(self, events: tuple[ScopeEvent, ...], what: str, esr: int) -> None:
        errors = [e for e in events if e.is_error]
        if any(e.code == 401 for e in events):
            raise settings_changed(self.resource, ["the scope reports a power-on event"])
        if errors or esr & ESR_ERROR_BITS:
            listed = "; ".join(f"{e.code} {e.message}" for e in errors) or f"ESR={esr}"
            raise ScopeInstrumentError(
                f"{self.resource}: the scope reported errors while {what}: {listed}",
                hint="the first entry usually names the command it refused; see the "
                     "programmer manual's error list",
                code=errors[0].code if errors else esr,
            )

    def _code_limits(self, width_bytes: int) -> tuple[int, int]:
        return self.model.code_limits(width_bytes)

    def _block_timeout_s(self, n_bytes: int) -> float:
        # At least 2 MB/s even over a slow link, on top of the scope's answer time.
        return self.io_timeout_s + n_bytes / 2e6

    # ------------------------------------------------------------ vendor steps

    def _validate(self, settings: ScopeSettings) -> None:
        raise NotImplementedError

    def _do_prepare(self) -> None:
        raise NotImplementedError

    def _do_configure(self, settings: ScopeSettings) -> None:
        raise NotImplementedError

    def _do_arm(self) -> None:
        raise NotImplementedError

    def _do_is_armed(self, remaining_s: float) -> bool:
        raise NotImplementedError

    def _do_is_done(self, remaining_s: float) -> bool:
        raise NotImplementedError

    def _do_stop(self) -> None:
        raise NotImplementedError

    def _do_force(self) -> None:
        raise NotImplementedError

    def _do_fetch(self, accept: Callable[[Preamble, object], None],
                  timeout_s: float) -> tuple[np.ndarray, str]:
        """One compound query: data set-up, preamble, acquisition token, block, ``*ESR?``.

        Calls ``accept(preamble, token)`` before the block's data are read; returns the
        codes and the text after the block (the ``*ESR?`` answer)."""
        raise NotImplementedError

    def _do_read_events(self, after_esr: bool = False) -> tuple[ScopeEvent, ...]:
        raise NotImplementedError

    def _expectation(self) -> Expectation:
        raise NotImplementedError

    def _poll_timeout(self, remaining_s: float) -> float:
        """A poll query may use what is left of the wait, within sane bounds."""
        return min(self.io_timeout_s, max(remaining_s, 0.05))
