"""One hierarchy for everything charz reports to a user.

::

    CharzError                      exit 1 unless a subclass says otherwise
    ├── UsageError                  bad arguments or options (exit 2)
    ├── ArchiveError                a session directory cannot be read or written (exit 3)
    │   └── ArchiveCorrupt          a file in it is truncated or damaged (names the file)
    ├── ProfileError                a profile file is malformed or of an unknown schema (exit 8)
    ├── AnalysisError               the captures cannot be analysed at all (empty, NaN, ...)
    ├── ScopeError                  anything between charz and the oscilloscope
    │   ├── ScopeConnectionError    cannot open, or the connection dropped
    │   ├── ScopeTimeout            the scope did not answer within the timeout
    │   ├── ScopeProtocolError      an answer that does not follow the programmer manual
    │   ├── ScopeTransferError      a waveform block that is truncated or longer than announced
    │   ├── ScopeInstrumentError    the scope's own error queue reported a problem
    │   ├── TriggerTimeout          armed, but the trigger never fired
    │   └── ClippedWaveform         the record hit the ADC limits (over range)
    ├── DeviceError                 the drive under test
    │   ├── UnsafeTarget            refused: the device is in use or not what it seems
    │   ├── ConfirmationRequired    a destructive step was not confirmed
    │   └── DeviceCommandFailed     hdparm / nvme / blkdiscard / smartctl failed
    ├── WorkloadError               fio or the O_DIRECT request failed
    └── LogicError                  the logic analyser or sigrok-cli (R/B counting; exit 9)

Each kind has its own exit code (:data:`EXIT_CODES`, which every ``--help`` lists):
a script can tell a scope problem from a drive problem by the status alone.

Every error carries a ``hint``: what the user should do about it.  Errors keep the
code of the layer below (e.g. a VISA status) in ``code`` when there is one.
"""

from __future__ import annotations


class CharzError(Exception):
    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None, code: int | str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code

    def __str__(self) -> str:
        return self.message


class UsageError(CharzError):
    exit_code = 2


class ArchiveError(CharzError):
    exit_code = 3


class ArchiveCorrupt(ArchiveError):
    def __init__(self, path, message: str, *, hint: str | None = None):
        super().__init__(f"{path}: {message}", hint=hint)
        self.path = path


class ProfileError(CharzError):
    exit_code = 8


class AnalysisError(CharzError):
    exit_code = 4


class ScopeError(CharzError):
    exit_code = 5


class ScopeConnectionError(ScopeError):
    pass


class ScopeTimeout(ScopeError):
    pass


class ScopeProtocolError(ScopeError):
    pass


class ScopeTransferError(ScopeError):
    pass


class ScopeInstrumentError(ScopeError):
    pass


class TriggerTimeout(ScopeError):
    pass


class ClippedWaveform(ScopeError):
    pass


class DeviceError(CharzError):
    exit_code = 6


class UnsafeTarget(DeviceError):
    pass


class ConfirmationRequired(DeviceError):
    pass


class DeviceCommandFailed(DeviceError):
    pass


class WorkloadError(CharzError):
    exit_code = 7


class LogicError(CharzError):
    """The logic analyser path (sigrok-cli, a session file, the R/B stream) failed or cannot be trusted."""

    exit_code = 9


# The one table of exit statuses; `--help` of every command prints it, a unit test checks
# that each error kind above has its own row.
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (0, "success"),
    (1, "failed (an error of no more specific kind)"),
    (2, "bad arguments or options (UsageError)"),
    (3, "a session or archive cannot be read or written (ArchiveError)"),
    (4, "the captures cannot be analysed (AnalysisError)"),
    (5, "the oscilloscope or its link (ScopeError)"),
    (6, "the drive: refused, not confirmed, or a command failed (DeviceError)"),
    (7, "fio or an O_DIRECT request failed (WorkloadError)"),
    (8, "a profile is malformed or of an unknown schema (ProfileError)"),
    (9, "the logic analyser or sigrok-cli (LogicError)"),
    (130, "stopped by Ctrl-C (128 + SIGINT); what was done is kept"),
    (143, "stopped by SIGTERM (128 + SIGTERM); what was done is kept"),
)
