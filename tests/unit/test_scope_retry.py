"""The scope link's retry policy (charz.scope._retry) against a scripted driver."""

from __future__ import annotations

import pytest

from charz.errors import ScopeConnectionError, ScopeInstrumentError, ScopeProtocolError, ScopeTimeout
from charz.scope._retry import OPERATION_RECOVERIES, RECONNECT_ATTEMPTS, RetryingScope, open_with_retry


class Driver:
    """Fails the operations named in ``fail`` (a list consumed in order), logs every call."""

    def __init__(self, log, fail, resource="TCPIP::x::4000::SOCKET"):
        self.log, self.fail, self.resource = log, fail, resource
        self.settings = None
        self._settings = None

    def _call(self, name, value=None):
        self.log.append(name)
        if self.fail and self.fail[0][0] == name:
            raise self.fail.pop(0)[1]
        return value

    def configure(self, s):
        self._call("configure")
        self.settings = self._settings = s
        return s

    def arm(self, timeout_s=None):
        return self._call("arm")

    def wait(self, timeout_s):
        self.settings = self._settings
        return self._call("wait", 0.01)

    def fetch(self, *, max_clipped_fraction=0.0):
        return self._call("fetch", ("record", self._settings))

    def force_trigger(self):
        return self._call("force")

    def identify(self):
        return self._call("identify", "idn")

    def stop(self):
        return self._call("stop")

    def close(self):
        self.log.append("close")


def make(fail):
    log = []
    opened = []

    def reopen():
        log.append("reopen")
        d = Driver(log, fail)
        opened.append(d)
        return d

    first = Driver(log, fail)
    return RetryingScope(first, reopen, sleep=lambda s: None), log, opened


@pytest.mark.parametrize("exc", [ScopeConnectionError("dropped"), ScopeTimeout("late"),
                                 ScopeProtocolError("stale")])
def test_a_glitch_in_fetch_is_ridden_out_once_keeping_the_settings(exc):
    scope, log, opened = make([("fetch", exc)])
    scope.configure("S")
    assert scope.fetch() == ("record", "S")  # the new session knows the settings, sent none
    assert log == ["configure", "fetch", "close", "reopen", "fetch"]
    assert len(scope.take_retries()) == 1 and scope.take_retries() == []


def test_failures_in_a_row_are_bounded_and_the_last_is_raised():
    fails = [("fetch", ScopeTimeout(f"late {i}")) for i in range(OPERATION_RECOVERIES + 1)]
    scope, log, opened = make(fails)
    scope.configure("S")
    with pytest.raises(ScopeTimeout, match=f"late {OPERATION_RECOVERIES}"):
        scope.fetch()
    assert len(opened) == OPERATION_RECOVERIES and log.count("fetch") == OPERATION_RECOVERIES + 1


def test_a_glitch_during_the_recovery_is_one_more_round_not_the_end():
    # issue 25: at 5 % of commands faulty, the commands of a recovery were lost too and
    # ended the session; now that is one more (bounded) round
    scope, log, opened = make([("configure", ScopeConnectionError("dropped")), ("configure", ScopeTimeout("lost")),
                               ("configure", ScopeTimeout("late"))])
    scope.configure("S")
    assert log == ["configure", "close", "reopen", "configure", "close", "reopen", "configure",
                   "close", "reopen", "configure"]
    notes = scope.take_retries()
    assert len(notes) == 3 and "the recovery failed too (lost)" in notes[0]
    assert notes[-1].endswith("reconnected and repeated it")


def test_arm_is_repeated_on_the_settings_the_scope_kept():
    scope, log, opened = make([("arm", ScopeConnectionError("dropped"))])
    scope.configure("S")
    scope.arm()
    assert log == ["configure", "arm", "close", "reopen", "arm"]
    assert opened[-1]._settings == "S"  # the new session knows them without sending them again


def test_force_trigger_and_instrument_errors_are_never_repeated():
    scope, log, _ = make([("force", ScopeTimeout("late"))])
    with pytest.raises(ScopeTimeout):
        scope.force_trigger()
    scope, log, _ = make([("fetch", ScopeInstrumentError("settings changed"))])
    with pytest.raises(ScopeInstrumentError):
        scope.fetch()
    assert "reopen" not in log


def test_wrong_instrument_is_not_a_glitch():
    scope, log, _ = make([("identify", ScopeProtocolError("a Rigol", code="wrong-instrument"))])
    with pytest.raises(ScopeProtocolError):
        scope.identify()
    assert "reopen" not in log


def test_connecting_is_bounded_with_back_off():
    calls, sleeps, notes = [], [], []

    def opener():
        calls.append(1)
        raise ScopeTimeout("no *IDN? reply")

    with pytest.raises(ScopeTimeout):
        open_with_retry(opener, resource="r", note=notes.append, sleep=sleeps.append)
    assert len(calls) == RECONNECT_ATTEMPTS
    assert sleeps == sorted(sleeps) and sleeps[0] < sleeps[-1]  # backing off
    assert len(notes) == RECONNECT_ATTEMPTS - 1
