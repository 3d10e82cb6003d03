"""The retry policy of the scope link: ride out glitches, a bounded number in a row.

A bench session lasts hours; a real link drops a connection or loses a reply now
and then.  This layer sits above the drivers' wire code and decides what may be
repeated after such a glitch (see docs/session.md, "The scope link's retry policy"):

* **Repeated after a reconnect** (they change nothing, or set what was already set):
  identify, configure (the same settings again), arm (before the request is sent:
  arming again is arming knowingly; the scope kept its settings), waiting for the
  trigger (only polls), stop, and
  fetching the record of the acquisition already taken (preamble + curve; the
  preamble check still proves the settings are the ones configured).
* **Never repeated**: forcing a trigger (it may have acquired already).  The drive's
  request is never repeated here either: if a capture must be taken again, the
  session does it with a fresh write offset and says so.
* **Glitches** are a lost connection (:class:`ScopeConnectionError`), a reply that
  never came or came too late (:class:`ScopeTimeout`), replies that no longer
  match their queries (:class:`ScopeProtocolError` other than a wrong instrument), and
  a waveform block damaged twice (:class:`ScopeTransferError`).
  A reconnect closes the old session, so a late or stale reply cannot be read as the
  answer to a later query.
* **Bounded**: an operation is recovered at most ``OPERATION_RECOVERIES`` times in a row
  (reconnect, configure again if it needs the settings, repeat it).  A glitch *during*
  a recovery — the reconnection's ``*IDN?``, the configure — is one more failed round,
  not the end: on a link that loses one command in twenty every recovery has its own
  commands to lose.  When every round fails (or the reconnection fails
  ``RECONNECT_ATTEMPTS`` times with back-off) the last error is raised and stops the
  session, its captures kept.

Every retry is written to :attr:`RetryingScope.retries` (a list of sentences); the
session moves them into the capture's warnings and counts them in its summary.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from charz.errors import ScopeConnectionError, ScopeError, ScopeProtocolError, ScopeTimeout, ScopeTransferError

__all__ = ["RECONNECT_ATTEMPTS", "OPERATION_RECOVERIES", "BACKOFF_S", "RetryingScope", "is_glitch",
           "open_with_retry"]

RECONNECT_ATTEMPTS = 4  # a scope that lost three *IDN? replies in a row is still reached
OPERATION_RECOVERIES = 5  # rounds of reconnect (+ configure) + repeat, per operation, in a row
BACKOFF_S = (0.25, 0.5, 1.0)  # before each reconnection attempt (and each recovery round)


def is_glitch(exc: BaseException) -> bool:
    """A failure of the link rather than of the instrument or of the request.  A block
    damaged twice (ScopeTransferError) is the link too: on a fresh connection the
    acquisition already taken is fetched again."""
    if isinstance(exc, (ScopeConnectionError, ScopeTimeout, ScopeTransferError)):
        return True
    if isinstance(exc, ScopeProtocolError):
        return getattr(exc, "code", None) != "wrong-instrument"
    return False


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 120 else text[:117] + "..."


def open_with_retry(opener: Callable[[], Any], *, resource: str, note: Callable[[str], None],
                    sleep: Callable[[float], None] = time.sleep):
    """``opener()`` (connect + *IDN?), repeated after a glitch up to RECONNECT_ATTEMPTS times."""
    for attempt in range(1, RECONNECT_ATTEMPTS + 1):
        try:
            return opener()
        except ScopeError as exc:
            if not is_glitch(exc) or attempt == RECONNECT_ATTEMPTS:
                raise
            note(f"scope link: connecting to {resource} failed ({_describe(exc)}); "
                 f"connecting again in {BACKOFF_S[attempt - 1]:g} s")
            sleep(BACKOFF_S[attempt - 1])
    raise AssertionError("unreachable")  # pragma: no cover


class RetryingScope:
    """A :class:`~charz.scope.Scope` that reconnects and repeats idempotent operations once.

    ``reopen()`` returns a freshly connected driver (open_scope on the same resource).
    Everything not listed here is passed through to the driver in use.
    """

    def __init__(self, driver: Any, reopen: Callable[[], Any], *, sleep: Callable[[float], None] = time.sleep):
        self._reopen = reopen
        self._sleep = sleep
        self.retries: list[str] = []  # taken by the session (capture warnings, summary)
        self.total_retries = 0
        self._use(driver)

    def _use(self, driver: Any) -> None:
        self._driver = driver
        # fetch_record's own second fetch of a damaged block is a retry too: it says so here.
        driver.retry_notes = self.retries

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)

    @property
    def driver(self) -> Any:
        return self._driver

    def take_retries(self) -> list[str]:
        out = list(self.retries)
        self.retries.clear()  # the same list the driver appends to
        return out

    def close(self) -> None:
        self._driver.close()

    # ------------------------------------------------------------ the policy

    def _reconnect(self, why: BaseException, what: str):
        settings = self._driver.settings
        try:
            self._driver.close()
        except Exception:  # noqa: BLE001 - the old session is being dropped anyway
            pass
        self._use(open_with_retry(self._reopen, resource=self._driver.resource,
                                  note=self.retries.append, sleep=self._sleep))
        return settings

    def _repeat(self, what: str, call: Callable[[Any], Any], *, reconfigure: bool, keep_settings: bool = False):
        try:
            return call(self._driver)
        except ScopeError as exc:
            if not is_glitch(exc):
                raise
            failure = exc
        settings = self._driver.settings
        for round_ in range(OPERATION_RECOVERIES):
            self._sleep(BACKOFF_S[min(round_, len(BACKOFF_S) - 1)])
            self.total_retries += 1
            try:
                self._reconnect(failure, what)
                if settings is not None:
                    if reconfigure:
                        self._driver.configure(settings)
                    elif keep_settings:
                        # The scope kept its settings and its acquisition over the reconnect;
                        # the new session only has to know them (fetch's preamble check proves them).
                        self._driver._settings = settings
                result = call(self._driver)
            except ScopeError as exc:
                if not is_glitch(exc):
                    raise
                self.retries.append(f"scope link: {what} failed ({_describe(failure)}); the recovery failed too "
                                    f"({_describe(exc)})")
                failure = exc
                continue
            self.retries.append(f"scope link: {what} failed ({_describe(failure)}); reconnected and repeated it")
            return result
        raise failure  # every round failed: the link is down, not glitching

    def identify(self):
        return self._repeat("identifying", lambda d: d.identify(), reconfigure=False)

    def configure(self, settings):
        return self._repeat("configuring", lambda d: d.configure(settings), reconfigure=False)

    def arm(self, timeout_s: float | None = None) -> None:
        # Before the drive's request: a repeated arm is a knowing re-arm.  The scope kept its
        # settings over the reconnect (a reset is the session's to notice: fetch's preamble
        # check and wait's read-back); sending them all again would put a configure's twenty
        # queries, each as likely to be lost, into every recovery.
        return self._repeat("arming", lambda d: d.arm(timeout_s), reconfigure=False, keep_settings=True)

    def wait(self, timeout_s: float) -> float:
        return self._repeat("waiting for the trigger", lambda d: d.wait(timeout_s), reconfigure=False,
                            keep_settings=True)

    def fetch(self, *, max_clipped_fraction: float = 0.0):
        return self._repeat("fetching the record", lambda d: d.fetch(max_clipped_fraction=max_clipped_fraction),
                            reconfigure=False, keep_settings=True)

    def stop(self) -> None:
        return self._repeat("stopping", lambda d: d.stop(), reconfigure=False, keep_settings=True)

    def force_trigger(self) -> None:
        return self._driver.force_trigger()  # never repeated: it may have acquired already
