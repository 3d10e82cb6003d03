"""A sequential stream of queue-depth-1 O_DIRECT writes through the simulated SSD.

003 §6 validates the I/O unit with direct sequential writes of a 128 MB file at record
sizes 4 KB ... 64 KB.  On the mock bench the drive's side of that experiment is this
model: the host issues one request, waits for it to complete, spends a turnaround
(syscall, fio's loop) and issues the next at the following offset.  Each request is
scheduled by :func:`charz.sim._schedule.schedule_write` with the drive's state carried
along, so a record smaller than the write I/O unit pays the read-modify-write the
scheduler already draws (003 Fig. 16/17).

The charge is integrated analytically from the activity intervals, never from rendered
samples, so nothing depends on a sample interval:

* during a request: ``idle_a`` plus every interval's amperes over its length;
* between requests (the host turnaround): ``idle_a``;
* the post-I/O tail (MXP's 80 mA, ``currents.tail_a`` for ``tail_s``) is a drive state:
  it starts at each completion and is renewed by the next one, so overlapping tails count
  once; it adds to whatever else the drive draws.  The window ends at the last
  completion (as fio's runtime does), so the last tail falls outside it.

Left out on purpose, because their time average is zero or they belong to an idle drive:
noise, mains hum, spikes, the ISPP ripple (a symmetric square wave), the supply's
low-pass (it moves charge in time, it does not add any), idle peaks (housekeeping of a
drive with nothing to do).  The write cache is off, as 003 Table 3 sets it (``hdparm -W0``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from charz.errors import UsageError
from charz.sim._model import DriveModel
from charz.sim._schedule import Activity, DriveState, schedule_write

__all__ = ["StreamResult", "play_stream", "request_charge"]

#: fio's psync loop between two requests on a quiet host (pwrite return → next pwrite), roughly.
DEFAULT_TURNAROUND_S = 20e-6


@dataclass(frozen=True)
class StreamResult:
    """What a stream of writes of one record size cost the simulated drive.

    Attributes
    ----------
    record_size_bytes : int
        Size of every request.
    requests : int
        Requests the stream stands for.
    simulated_requests : int
        Requests actually scheduled; fewer than ``requests`` when a prefix was played and
        scaled (see ``scaled``).
    bytes_written : int
        ``requests × record_size_bytes``.
    duration_s : float
        First issue to last completion, turnarounds included.
    charge_c : float
        Supply charge over ``duration_s`` (ampere-seconds).
    busy_s : float
        Sum of the requests' own durations (issue → completion).
    rmw_s : float
        Sum of the read-modify-write read phases (0 when every record fills whole units).
    tail_charge_c : float
        The part of ``charge_c`` drawn by the post-I/O tail.
    turnaround_s : float
        Host time before each request.
    """

    record_size_bytes: int
    requests: int
    simulated_requests: int
    bytes_written: int
    duration_s: float
    charge_c: float
    busy_s: float
    rmw_s: float
    tail_charge_c: float
    turnaround_s: float

    @property
    def scaled(self) -> bool:
        """True when a prefix was simulated and scaled to ``requests``."""
        return self.simulated_requests < self.requests

    @property
    def mean_current_a(self) -> float:
        return self.charge_c / self.duration_s

    @property
    def mb_per_s(self) -> float:
        """Throughput in MB/s (MB = 10^6 B, as fio's ``bw_bytes / 1e6``)."""
        return self.bytes_written / self.duration_s / 1e6

    def energy_j(self, rail_v: float) -> float:
        return self.charge_c * rail_v


def request_charge(activity: Activity, idle_a: float) -> tuple[float, float]:
    """Duration (µs) and supply charge (µC) of one request, from issue to completion.

    The idle current flows all along; every activity interval adds its amperes over its
    length.  A µs·A is a µC.

    Examples
    --------
    >>> from charz.sim import load_preset, DriveState, schedule_write
    >>> m = load_preset("qpro")
    >>> act = schedule_write(m, DriveState(m), 32768, 0, np.random.default_rng(0))
    >>> duration_us, charge_uc = request_charge(act, m.currents.idle_a)
    >>> round(duration_us), round(charge_uc)
    (1689, 467)
    """
    t0_us, t1_us, amps = activity.intervals[0], activity.intervals[1], activity.intervals[2]
    # Completion is end_us; an interval reaching past it would still be the drive's work.
    duration_us = max(float(activity.end_us), float(t1_us.max()) if t1_us.size else 0.0)
    return duration_us, idle_a * duration_us + float(np.dot(t1_us - t0_us, amps))


def _arg_count(name: str, value: int, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise UsageError(f"{name} must be an integer >= {minimum}, not {value!r}")
    return int(value)


def _arg_seconds(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
        raise UsageError(f"{name} must be a non-negative number of seconds, not {value!r}")
    return float(value)


def play_stream(
    model: DriveModel,
    record_size_bytes: int,
    requests: int,
    *,
    turnaround_s: float = DEFAULT_TURNAROUND_S,
    first_offset_bytes: int = 0,
    seed: int = 0,
    max_requests: int | None = None,
) -> StreamResult:
    """Play ``requests`` sequential QD1 writes of ``record_size_bytes`` through the drive.

    Parameters
    ----------
    model : DriveModel
        The simulated drive (e.g. ``load_preset("qpro")``).
    record_size_bytes : int
        Size of each request; request *i* goes to ``first_offset_bytes + i × size``.
    requests : int
        How many requests the stream has (fio's ``total_ios``).
    turnaround_s : float
        Host time before each request is issued.
    first_offset_bytes : int
        Offset of the first request.
    seed : int
        Seeds the drive's fixed per-package variation and the program-time jitter.
    max_requests : int, optional
        Simulate at most this many (a prefix long enough for steady state) and scale time
        and charge to ``requests``; ``StreamResult.scaled`` says so.

    Returns
    -------
    StreamResult

    Examples
    --------
    Q Pro's unit is 32 KiB: a 4 KiB record pays a read-modify-write per request.

    >>> from charz.sim import load_preset
    >>> qpro = load_preset("qpro")
    >>> small = play_stream(qpro, 4096, 64)
    >>> unit = play_stream(qpro, 32768, 8)
    >>> small.bytes_written == unit.bytes_written, small.rmw_s > 0, unit.rmw_s
    (True, True, 0.0)
    >>> bool(unit.mb_per_s > 5 * small.mb_per_s)
    True
    """
    record = _arg_count("record_size_bytes", record_size_bytes)
    n = _arg_count("requests", requests)
    turn_us = _arg_seconds("turnaround_s", turnaround_s) * 1e6
    offset = _arg_count("first_offset_bytes", first_offset_bytes, minimum=0)
    n_sim = n if max_requests is None else min(n, _arg_count("max_requests", max_requests))

    state = DriveState(model, seed)
    rng = np.random.default_rng([seed, 0x57E4])
    idle_a = model.currents.idle_a
    tail_a, tail_us = model.currents.tail_a, model.currents.tail_s * 1e6
    has_tail = bool(tail_a and tail_us)
    clock_us = charge_uc = busy_us = rmw_us = tail_on_us = 0.0
    tail_until_us = 0.0
    for i in range(n_sim):
        activity = schedule_write(model, state, record, offset + i * record, rng)
        duration_us, request_uc = request_charge(activity, idle_a)
        issued_us = clock_us + turn_us
        charge_uc += idle_a * turn_us + request_uc
        busy_us += duration_us
        rmw_us += activity.rmw_read_us
        clock_us = issued_us + duration_us
        if has_tail:
            # Tails start in time order, so their union is the sum of what each adds
            # beyond the latest end so far: a renewed tail is counted once.
            start_us = issued_us + activity.tail_from_us
            end_us = start_us + tail_us
            tail_on_us += max(0.0, end_us - max(start_us, tail_until_us))
            tail_until_us = max(tail_until_us, end_us)
    # Every tail starts before the last completion, so what lies past it is one piece.
    tail_on_us -= max(0.0, tail_until_us - clock_us)
    tail_uc = tail_a * tail_on_us
    scale = n / n_sim
    return StreamResult(
        record_size_bytes=record,
        requests=n,
        simulated_requests=n_sim,
        bytes_written=n * record,
        duration_s=clock_us * scale * 1e-6,
        charge_c=(charge_uc + tail_uc) * scale * 1e-6,
        busy_s=busy_us * scale * 1e-6,
        rmw_s=rmw_us * scale * 1e-6,
        tail_charge_c=tail_uc * scale * 1e-6,
        turnaround_s=turn_us * 1e-6,
    )
