"""Carry out an :class:`~charz.device._plan.InitPlan` and undo it afterwards.

Every setting is read before it is changed, read back after, and compared with
its target; whatever was changed is put back when the ``with`` block ends, also
after an error or Ctrl-C (KeyboardInterrupt) — including one that arrives
half-way through the initialization itself.

    with initialize(plan, runner=runner, hold=hold, confirm_serial=serial) as init:
        ...captures...
    init.record()      # what was done, skipped, warned about and restored
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Callable, Iterable, Mapping

from charz.device._confirm import check_confirmation
from charz.device._erase import EraseOutcome, run_erase
from charz.device._guard import ExclusiveHold
from charz.device._plan import InitPlan, Setting
from charz.device._runner import Runner, run_tool
from charz.errors import DeviceCommandFailed, DeviceError, UnsafeTarget


@dataclass(frozen=True)
class AppliedSetting:
    """A setting as found and as left."""

    key: str
    label: str
    before: int | str | None
    after: int | str | None
    target: int | str | None
    command: tuple[str, ...]
    #: what is put back at the end when it is not ``before``: the value an earlier, unfinished
    #: initialization found (``before`` then reads that initialization's own change).
    original: int | str | None = None


@dataclass(frozen=True)
class SkippedSetting:
    key: str
    label: str
    reason: str
    warning: str


@dataclass(frozen=True)
class RestoredSetting:
    key: str
    value: int | str | None
    ok: bool
    message: str = ""


def _arg_hold(plan: InitPlan, hold: ExclusiveHold | None) -> None:
    # Everything here writes to the drive (settings, erase), so it needs the proof
    # that the guard passed: the open exclusive hold on this very device.
    if hold is None or not isinstance(hold, ExclusiveHold) or not hold.covers(plan.device) or not hold.checked:
        raise UnsafeTarget(
            f"refusing to initialize {plan.device} without a checked exclusive hold on it",
            hint="get the hold from claim_target() (check, O_EXCL claim, check again) and pass it",
        )


class Initialization:
    """The running initialization of one drive; a context manager.

    Use :func:`initialize` to make one.  Attributes are filled as it runs:
    ``erase``, ``applied``, ``skipped``, ``warnings``, and after the block
    ``restored`` and ``restore_failures``.
    """

    def __init__(self, plan: InitPlan, *, runner: Runner, hold: ExclusiveHold | None,
                 confirm_serial: str | None = None, originals: Mapping[str, int | str] | None = None,
                 journal: Callable[[dict], None] | None = None):
        self.plan = plan
        self._runner = runner
        self._hold = hold
        self._confirm_serial = confirm_serial
        # Values an earlier initialization changed and never put back (kill -9, power loss):
        # the drive now reads charz's own setting, so these, not what is read, are restored.
        self._originals = dict(originals or {})
        # Called with record() before every change and after the restore, so that a kill -9
        # at any moment leaves in the archive what has to be put back (charz restore DIR).
        self._journal = journal
        self.state = "planned"
        self.erase: EraseOutcome | None = None
        self.applied: list[AppliedSetting] = []
        self.skipped: list[SkippedSetting] = []
        self.restored: list[RestoredSetting] = []
        self.restore_failures: list[str] = []
        self.journal_failures: list[str] = []
        self._to_restore: list[tuple[Setting, int | str]] = []

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.plan.warnings

    # -- context manager --------------------------------------------------------

    def __enter__(self) -> Initialization:
        _arg_hold(self.plan, self._hold)
        step = self.plan.erase
        if step is not None:
            if not step.supported:
                # refuse before changing anything: a half-initialized drive helps nobody
                raise DeviceCommandFailed(
                    f"cannot erase {self.plan.device} ({step.method}): {step.reason}",
                    hint=step.hint or None,
                )
            check_confirmation(self.plan.identity, self._confirm_serial, step.method)
        try:
            self.state = "applying"
            if step is not None:
                self.erase = run_erase(step, self.plan.identity, runner=self._runner)
            for setting in self.plan.settings:
                if setting.supported:
                    self._apply(setting)
                else:
                    self.skipped.append(SkippedSetting(setting.key, setting.label, setting.reason,
                                                       setting.warning))
            self.state = "applied"
            self._write_journal()  # inside the try: a signal here must still restore
        except BaseException as exc:
            # includes KeyboardInterrupt: undo what was already changed, then re-raise
            self._restore_all(exc)
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        self._restore_all(exc)
        if self.restore_failures and exc is None:
            raise DeviceCommandFailed(
                f"could not restore every setting of {self.plan.device}:\n  "
                + "\n  ".join(self.restore_failures),
                hint="set them back by hand (the commands are in the message) or power-cycle the drive",
            )
        return False

    # -- steps ------------------------------------------------------------------

    def _read(self, setting: Setting) -> int | str:
        text = run_tool(self._runner, setting.read_argv, what=f"read the {setting.label}").stdout
        value = setting.parse(text) if setting.parse else text.strip()
        if value is None:
            raise DeviceCommandFailed(
                f"{self.plan.device}: the {setting.label} reads as 'not supported' "
                "although IDENTIFY lists it",
            )
        return value

    def _write_journal(self) -> None:
        if self._journal is not None:
            self._journal(self.record())

    def _apply(self, setting: Setting) -> None:
        before = self._read(setting)
        original = self._originals.get(setting.key, before)
        if not setting.set_argv:
            self.applied.append(AppliedSetting(setting.key, setting.label, before, before, None, ()))
            return
        if setting.restore and original != setting.target:
            # registered (and journalled) before the set: if the set dies half-way, or the
            # process is killed, putting back the original value is still right
            self._to_restore.append((setting, original))
            self._write_journal()
        command = setting.render_set(setting.target)
        run_tool(self._runner, command, what=f"set the {setting.label}")
        after = self._read(setting)
        self.applied.append(AppliedSetting(setting.key, setting.label, before, after, setting.target, command,
                                           original if original != before else None))
        if after != setting.target:
            raise DeviceCommandFailed(
                f"{self.plan.device}: the {setting.label} reads back as {after!r} after setting "
                f"{setting.target!r} ({' '.join(command)})",
                hint="the drive ignored the command; check the tool's version and the drive's support",
            )

    def _restore_all(self, in_flight: BaseException | None) -> None:
        interrupted: KeyboardInterrupt | None = None
        while self._to_restore:
            setting, value = self._to_restore.pop()
            command = setting.render_set(value)
            try:
                run_tool(self._runner, command, what=f"restore the {setting.label}")
                now = self._read(setting)
                if now != value:
                    raise DeviceCommandFailed(f"reads back as {now!r}")
                self.restored.append(RestoredSetting(setting.key, value, True))
            except DeviceError as exc:
                message = f"{setting.label} → {value!r} ({' '.join(command)}): {exc.message}"
                self.restore_failures.append(message)
                self.restored.append(RestoredSetting(setting.key, value, False, exc.message))
            except KeyboardInterrupt as exc:
                # a second Ctrl-C must not leave the other settings changed
                interrupted = exc
                message = f"{setting.label} → {value!r} ({' '.join(command)}): interrupted"
                self.restore_failures.append(message)
                self.restored.append(RestoredSetting(setting.key, value, False, "interrupted"))
        if self.state != "planned":
            self.state = "restore failed" if self.restore_failures else "restored"
            try:
                self._write_journal()
            except Exception as exc:  # noqa: BLE001 - e.g. the archive's disk is full: the drive came first
                # The drive is restored; only its record is not (the archive then still says
                # "applied", and charz restore DIR would set the same values again: harmless).
                self.journal_failures.append(f"the record of this restore could not be written: {exc}")
                if in_flight is not None:
                    in_flight.add_note(self.journal_failures[-1])
        if in_flight is not None and self.restore_failures:
            in_flight.add_note("could not restore: " + "; ".join(self.restore_failures))
        if interrupted is not None and in_flight is None:
            raise interrupted

    # -- record -------------------------------------------------------------------

    def record(self) -> dict:
        """A JSON-ready account of the initialization, for the session archive."""
        return {
            "device": self.plan.device,
            "transport": self.plan.identity.transport,
            "state": self.state,
            "plan": self.plan.describe(),
            "erase": asdict(self.erase) if self.erase else None,
            "applied": [asdict(a) for a in self.applied],
            "skipped": [asdict(s) for s in self.skipped],
            "warnings": list(self.warnings),
            # what is (or was) to be put back, newest last; restored says how it went
            "to_restore": [{"key": setting.key, "label": setting.label, "value": value}
                           for setting, value in self._to_restore]
            + [{"key": r.key, "label": self.label_of(r.key), "value": r.value} for r in reversed(self.restored)],
            "restored": [asdict(r) for r in self.restored],
            "restore_failures": list(self.restore_failures),
        }

    def label_of(self, key: str) -> str:
        return next((s.label for s in self.plan.settings if s.key == key), key)


def initialize(plan: InitPlan, *, runner: Runner, hold: ExclusiveHold | None,
               confirm_serial: str | None = None, originals: Mapping[str, int | str] | None = None,
               journal: Callable[[dict], None] | None = None) -> Initialization:
    """Make the context manager that applies ``plan`` and restores it on exit.

    Parameters
    ----------
    plan : InitPlan
        From :func:`plan_initialization`.
    runner : Runner
    hold : ExclusiveHold
        From :func:`claim_target` on the same device (the guard's proof).
    confirm_serial : str, optional
        Needed when the plan erases: the drive's serial (kernel name when it has none).
    originals : mapping, optional
        Setting key → value to put back at the end instead of the value read now: what an
        earlier initialization of this drive found and never restored (:func:`not_restored`).
    journal : callable, optional
        Called with :meth:`Initialization.record` before each change and after the restore.

    Examples
    --------
    >>> with initialize(plan, runner=runner, hold=hold) as init:   # doctest: +SKIP
    ...     [a.key for a in init.applied]
    ['read_ahead', 'look_ahead', 'write_cache', 'standby']
    """
    return Initialization(plan, runner=runner, hold=hold, confirm_serial=confirm_serial, originals=originals,
                          journal=journal)


def not_restored(records: Iterable[dict]) -> dict[str, int | str]:
    """Setting key → original value, for what a drive's initialization records (oldest first)
    changed and never put back — the drive still holds charz's setting (kill -9, power loss).

    The first record to change a setting holds its original; a later one reads charz's own
    value as "before" and carries the original over.  A setting restored (``ok``) is done.

    >>> not_restored([{"to_restore": [{"key": "read_ahead", "value": 256}], "restored": []},
    ...               {"to_restore": [{"key": "read_ahead", "value": 256}],
    ...                "restored": [{"key": "read_ahead", "value": 256, "ok": True}]}])
    {}
    >>> not_restored([{"to_restore": [{"key": "read_ahead", "value": 256}], "restored": []},
    ...               {"applied": [{"key": "read_ahead", "before": 0, "after": 0, "target": 0}]}])
    {'read_ahead': 256}
    """
    pending: dict[str, int | str] = {}
    for record in records:
        if not isinstance(record, dict):
            continue
        if "to_restore" in record:
            wanted = [(e.get("key"), e.get("value")) for e in record.get("to_restore") or [] if isinstance(e, dict)]
        else:  # a record of charz before 0.x: what it changed, as it found it
            wanted = [(a.get("key"), a.get("before")) for a in record.get("applied") or []
                      if isinstance(a, dict) and a.get("command") and a.get("before") != a.get("target")]
        for key, value in wanted:
            if isinstance(key, str) and value is not None:
                pending.setdefault(key, value)
        for r in record.get("restored") or []:
            if isinstance(r, dict) and r.get("ok") and pending.get(r.get("key")) == r.get("value"):
                pending.pop(r["key"])
    return pending


def put_back(plan: InitPlan, values: Mapping[str, int | str], *, runner: Runner,
             hold: ExclusiveHold | None) -> Initialization:
    """Only restore: set each of ``values`` (key → value, from :func:`not_restored`) on the
    drive ``plan`` describes and read it back; nothing else is changed.  The returned
    Initialization's ``record()`` says what was restored (``state`` "restored" or "restore
    failed")."""
    _arg_hold(plan, hold)
    init = Initialization(plan, runner=runner, hold=hold)
    by_key = {s.key: s for s in plan.settings}
    unknown = [k for k in values if k not in by_key or not by_key[k].set_argv or not by_key[k].supported]
    if unknown:
        raise DeviceCommandFailed(f"{plan.device}: charz cannot set {', '.join(unknown)} on this device now",
                                  hint="is it the same drive, on the same kind of link? set it back by hand")
    init.state = "restoring"
    # newest change first, as at the end of a session
    init._to_restore = [(by_key[k], v) for k, v in reversed(list(values.items()))]
    init._restore_all(None)
    return init
