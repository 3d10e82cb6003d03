"""Acquisition logic shared by every driver: polling, record checks, fetch with retry.

Vendor classes only say *how* to ask (``_do_*`` methods); this module decides *when*
to ask, how long to wait, when a record can be trusted and when one retry is worth it.

* Waiting polls against a ``time.monotonic()`` deadline, each poll's own VISA timeout
  bounded by what is left, so no call outlives the caller's timeout.
* Every record's preamble is compared with what :meth:`configure` asked for, so a
  scope that was reset or re-set from its front panel is noticed (never a silently
  wrong record).
* A block that arrives truncated, or longer than announced, is fetched once more if
  the acquisition is still the same one; a second failure is reported.

Example
-------
>>> import itertools
>>> clock = itertools.count(0.0, 0.25).__next__          # a fake clock: +0.25 s per reading
>>> poll(lambda remaining_s: False, 1.0, clock=clock, sleep=lambda s: None) is None
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from charz.errors import (
    ClippedWaveform,
    ScopeConnectionError,
    ScopeInstrumentError,
    ScopeTimeout,
    ScopeTransferError,
)
from charz.scope._record import Record

__all__ = ["Preamble", "Expectation", "poll", "mismatches", "fetch_record", "settings_changed"]


@dataclass(frozen=True)
class Preamble:
    """A vendor-neutral reading of one preamble (Tek WFMOutpre, Keysight :WAV:PRE): how the
    block is laid out, and the scaling and time axis the record's :class:`Record` will carry."""

    n_points: int
    width_bytes: int
    signed: bool
    big_endian: bool
    y_mult: float
    y_offset_codes: float
    y_zero: float
    unit: str
    sample_interval_s: float
    t_first_s: float
    source: str
    description: str
    text: str  # the reply exactly as received


@dataclass(frozen=True)
class Expectation:
    """What the record must look like after :meth:`configure` (the settings in force)."""

    n_points: int
    x_incr_s: float
    y_mult: float
    y_mult_rel_tol: float
    y_unit: str
    width_bytes: int
    source: str


def poll(check: Callable[[float], bool], timeout_s: float, *,
         clock: Callable[[], float] = time.monotonic,
         sleep: Callable[[float], None] = time.sleep,
         first_interval_s: float = 0.001, max_interval_s: float = 0.02) -> float | None:
    """Call ``check(remaining_s)`` until it returns True; the seconds taken, or None.

    The interval doubles from ``first_interval_s`` to ``max_interval_s`` so short waits
    are answered quickly and long ones do not flood the instrument.

    Example
    -------
    >>> t = iter([0.0, 0.0, 0.01]).__next__
    >>> poll(lambda remaining_s: True, 1.0, clock=t, sleep=lambda s: None)
    0.01
    """
    start = clock()
    deadline = start + timeout_s
    interval = first_interval_s
    while True:
        remaining = deadline - clock()
        if check(max(remaining, 0.0)):
            return max(clock() - start, 0.0)
        now = clock()
        if now >= deadline:
            return None
        sleep(min(interval, deadline - now))
        interval = min(interval * 2, max_interval_s)


def mismatches(expect: Expectation, got: Preamble) -> list[str]:
    """Human-readable differences between the expected and the received preamble.

    Example
    -------
    >>> e = Expectation(10000, 2e-6, 1.5625e-5, 1e-3, "A", 2, "CH1")
    >>> g = Preamble(10000, 2, True, True, 1.5625e-5, 0.0, 0.0, "V", 4e-9, 0.0, "CH1", "", "")
    >>> mismatches(e, g)
    ['sample interval 4e-09 s (expected 2e-06 s)', "units 'V' (expected 'A')"]
    """
    out = []
    if got.n_points != expect.n_points:
        out.append(f"record length {got.n_points} (expected {expect.n_points})")
    if not math.isclose(got.sample_interval_s, expect.x_incr_s, rel_tol=1e-4):
        out.append(f"sample interval {got.sample_interval_s:.6g} s (expected {expect.x_incr_s:.6g} s)")
    if got.unit.strip().upper() != expect.y_unit.upper():
        out.append(f"units {got.unit!r} (expected {expect.y_unit!r})")
    if not math.isclose(abs(got.y_mult), expect.y_mult, rel_tol=expect.y_mult_rel_tol):
        out.append(f"vertical step {got.y_mult:.6g} {got.unit}/code "
                   f"(expected {expect.y_mult:.6g}, i.e. a different V/div or A/div)")
    if got.width_bytes != expect.width_bytes:
        out.append(f"{got.width_bytes}-byte points (expected {expect.width_bytes})")
    if got.source.upper() != expect.source.upper():
        out.append(f"source {got.source} (expected {expect.source})")
    return out


def settings_changed(resource: str, problems: list[str]) -> ScopeInstrumentError:
    """The error for a scope whose settings are no longer the ones charz configured."""
    return ScopeInstrumentError(
        f"{resource}: the scope's settings changed since configure: " + "; ".join(problems),
        hint="the scope was reset, power-cycled or changed from its front panel; "
             "configure it again (charz does this at the start of every session)",
        code="settings-changed",
    )


class _FetchSteps(Protocol):
    resource: str

    def _do_fetch(self, accept: Callable[[Preamble, object], None],
                  timeout_s: float) -> tuple[np.ndarray, str]: ...
    def _after_block(self, after: str) -> None: ...
    def _resync(self) -> None: ...
    def _expectation(self) -> Expectation: ...
    def _code_limits(self, width_bytes: int) -> tuple[int, int]: ...
    def _block_timeout_s(self, n_bytes: int) -> float: ...


def _to_signed(codes: np.ndarray, pre: Preamble) -> tuple[np.ndarray, float]:
    """Unsigned (RP / UNSigned ON) codes become signed ones with the offset moved to YOFF."""
    if pre.signed:
        return codes, pre.y_offset_codes
    half = 1 << (8 * pre.width_bytes - 1)
    signed = (codes.astype(np.int32) - half).astype(np.int8 if pre.width_bytes == 1 else np.int16)
    return signed, pre.y_offset_codes - half


def fetch_record(steps: _FetchSteps, max_clipped_fraction: float) -> Record:
    """Fetch preamble, acquisition token, block and ``*ESR?`` in one exchange; check them
    all, and fetch once more after a damaged block.

    The vendor's ``_do_fetch`` sends one compound query and calls ``accept(preamble,
    token)`` as soon as the text ahead of the block has arrived, so a record that no
    longer matches the settings is refused before its data are read.

    Raises ScopeInstrumentError (settings changed), ScopeTransferError (damaged block,
    twice; or the scope acquired again in between), ClippedWaveform (too many points at
    the ADC limits); ScopeTimeout when no part of the reply came at all.
    """
    expect = steps._expectation()
    last_error: Exception | None = None
    token: object = None
    timeout_s = steps._block_timeout_s(expect.n_points * expect.width_bytes)
    for attempt in (1, 2):
        seen: list[tuple[Preamble, object]] = []

        def accept(pre: Preamble, got_token: object) -> None:
            problems = mismatches(expect, pre)
            if problems:
                raise settings_changed(steps.resource, problems)
            if attempt == 2 and seen_first and got_token != token:
                raise ScopeTransferError(
                    f"{steps.resource}: the block was damaged ({last_error}) and the scope has "
                    "acquired again since, so the record cannot be fetched a second time",
                    hint="arm and capture again", code="record-lost",
                ) from last_error
            seen.append((pre, got_token))

        seen_first = token is not None
        try:
            codes, after = steps._do_fetch(accept, timeout_s)
            pre = seen[-1][0]
            if codes.size != pre.n_points:
                raise ScopeTransferError(
                    f"{steps.resource}: the block holds {codes.size} points, the preamble "
                    f"announced {pre.n_points}", code="length-mismatch",
                    hint="fetch again; if it persists, check the DATa:STARt/STOP settings")
            steps._after_block(after)
        except (ScopeTransferError, ScopeTimeout) as exc:
            if getattr(exc, "code", None) == "record-lost":
                raise
            if isinstance(exc, ScopeTimeout) and not seen:
                raise  # nothing came: a lost reply, not a damaged block (the caller's retry policy)
            if seen and attempt == 1:
                token = seen[-1][1]
            last_error = exc
            steps._resync()
            notes = getattr(steps, "retry_notes", None)  # set by charz.scope._retry: every retry is told
            if attempt == 1 and notes is not None:
                notes.append(f"scope link: the waveform block was damaged ({exc}); fetched it again")
            if attempt == 2:
                raise ScopeTransferError(
                    f"{steps.resource}: the waveform block was damaged twice ({exc})",
                    hint="the link is losing data: check the cable, lower the record length "
                         "or raise the timeout, then capture again",
                    code=getattr(exc, "code", None),
                ) from exc
            continue
        except ScopeConnectionError:
            raise
        codes = codes.astype(codes.dtype.newbyteorder("="), copy=False)  # MSB-first blocks
        codes, y_offset = _to_signed(codes, pre)
        lo, hi = steps._code_limits(pre.width_bytes)
        record = Record(
            codes, pre.y_mult, y_offset, pre.y_zero, pre.sample_interval_s, pre.t_first_s,
            unit=pre.unit, source=pre.source, code_min=lo, code_max=hi,
            description=pre.description, preamble=pre.text,
        )
        if record.clipped_fraction > max_clipped_fraction:
            raise ClippedWaveform(
                f"{steps.resource}: {record.clipped_fraction:.2%} of the record sits at the ADC "
                f"limits (over range) on {record.source}",
                hint="raise the vertical scale (A/div) or move the trace with the vertical "
                     "position so the peaks stay on screen",
            )
        return record
    raise AssertionError("unreachable")  # pragma: no cover
