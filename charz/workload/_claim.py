"""The proof a writer needs before it may write to a block device.

The device layer's guard hands out a checked exclusive hold
(``charz.device.claim_target`` → ``ExclusiveHold``) only after every safety check
passed, the second time while the claim was already held.  The workload layer sits beside the device
layer, not above it, so it does not import it: it asks for anything shaped like
that hold (:class:`ExclusiveClaim`) and checks that it covers the device it is
about to write.
"""

from __future__ import annotations

import os
import stat
from typing import Protocol, runtime_checkable

from charz.errors import UnsafeTarget, WorkloadError


@runtime_checkable
class ExclusiveClaim(Protocol):
    """An open exclusive claim on one block device.

    Example
    -------
    >>> with claim_target("/dev/loop3", output_dir="runs", runner=runner) as hold:   # doctest: +SKIP
    ...     hold.covers("/dev/loop3"), hold.closed, hold.checked
    (True, False, True)
    """

    @property
    def closed(self) -> bool: ...

    @property
    def checked(self) -> bool:
        """Every safety check passed while this claim was held."""

    def covers(self, path: str | os.PathLike) -> bool: ...


def is_block_device(path: str | os.PathLike) -> bool:
    """True when ``path`` (symlinks resolved) is a block device."""
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise WorkloadError(f"cannot stat {os.fspath(path)}: {exc.strerror}", code=exc.errno) from exc


def require_claim_for_write(path: str | os.PathLike, claim: ExclusiveClaim | None) -> None:
    """Raise :class:`UnsafeTarget` unless writing ``path`` is covered by ``claim``.

    Regular files (scratch files on a file system) need no claim.
    """
    if not is_block_device(path):
        return
    if (claim is None or not isinstance(claim, ExclusiveClaim) or claim.closed or not claim.checked
            or not claim.covers(path)):
        raise UnsafeTarget(
            f"refusing to write to the block device {os.fspath(path)} without the guard's exclusive hold on it",
            hint="get the hold from charz.device.claim_target() and pass it as claim=",
        )
