"""The controller's schedule of one request: what each part of the drive does when.

A request is a list of ``Op``s, each an interval on the time line (µs from the host's
request) with the part that draws current during it.  Writes: the host's data arrives
in the buffer at the host link rate; the controller sends one page at a time — command
and address cycles, then the page over the package's channel — to the die it belongs
to; a die programs once its page is in, and with cache program the package takes the
next page into its cache register while the die still programs the previous one.  A
unit always programs whole (003 §4.1): a partial unit is padded, or with
read-modify-write its missing pages are first read out of the array.  Reads: one array
read per read unit on every die holding its pages, then the pages out over their
channels; with cache read the next unit's array read starts while this one's data goes
out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.independent_datasheet.ssd import Ssd, pages_of

CTRL, HOST, XFER, PROG, SENSE, ERASE = "ctrl", "host", "xfer", "prog", "sense", "erase"


@dataclass(frozen=True)
class Op:
    kind: str
    start: float
    end: float
    package: int = -1  # PROG / SENSE / ERASE
    die: int = -1
    channel: int = -1  # XFER
    weight: float = 1.0  # SENSE: dies sensing at once in this package


def _page_slots(ssd: Ssd, unit: int) -> list[tuple[int, int]]:
    """(package index in walk order, die) of each page of ``unit`` in dispatch order."""
    first = unit * ssd.unit_packages
    slots = []
    for q in range(ssd.unit_pages):
        if ssd.dispatch == "package-major":
            k, die = divmod(q, ssd.dies)
        else:
            die, k = divmod(q, ssd.unit_packages)
        slots.append(((first + k) % ssd.packages, die))
    return slots


def write_ops(ssd: Ssd, size_bytes: int, rng, walk: str | None = None) -> list[Op]:
    order = ssd.order(walk)
    pages = pages_of(size_bytes, ssd.page_bytes)
    units = -(-pages // ssd.unit_pages)
    host_page = ssd.page_bytes / ssd.host_mb_s
    t0 = ssd.t_host_us
    ops = [Op(HOST, t0 - 0.5 * ssd.t_host_us, t0 + pages * host_page)]
    cursor = t0
    if ssd.rmw and pages % ssd.unit_pages:
        # read the pages of the last unit the host did not send, before programming it
        last = (units - 1) * ssd.unit_pages
        missing = range(pages - last, ssd.unit_pages)
        slots = _page_slots(ssd, units - 1)
        t_r = ssd.t_read_us * rng.uniform(0.97, 1.03)
        per_pkg: dict[int, int] = {}
        for q in missing:
            per_pkg[slots[q][0]] = per_pkg.get(slots[q][0], 0) + 1
        for k, n in per_pkg.items():
            ops.append(Op(SENSE, cursor, cursor + t_r, package=k, weight=n))
        cursor += t_r
        chan_t = {}
        for q in missing:
            c = order[slots[q][0]][0]
            a = max(cursor, chan_t.get(c, cursor))
            ops.append(Op(XFER, a, a + ssd.t_io_page_us, channel=c))
            chan_t[c] = a + ssd.t_io_page_us
        cursor = max(chan_t.values()) + ssd.t_cmd_us
    chan_free = np.zeros(ssd.channels)
    die_free = np.zeros((ssd.packages, ssd.dies))  # program done
    reg_free = np.zeros((ssd.packages, ssd.dies))  # (cache) register can take a page
    last_pkg = None
    page_no = 0
    for u in range(units):
        for k, die in _page_slots(ssd, u):
            c = order[k][0]
            ready = t0 + min(page_no + 1, pages) * host_page  # padding pages need no host data
            if last_pkg is not None and k != last_pkg:
                cursor += ssd.t_select_us
            last_pkg = k
            start = max(cursor + ssd.t_cmd_us, chan_free[c], ready, reg_free[k, die])
            end_io = start + ssd.t_io_page_us
            ops.append(Op(XFER, start, end_io, channel=c))
            chan_free[c] = end_io
            cursor = start
            p0 = max(end_io, die_free[k, die])
            kind = ssd.page_types[page_no % len(ssd.page_types)]
            p1 = p0 + ssd.t_prog_us * kind * rng.uniform(0.97, 1.03)
            ops.append(Op(PROG, p0, p1, package=k, die=die))
            die_free[k, die] = p1
            reg_free[k, die] = p0 if ssd.cache_program else p1
            page_no += 1
    end = max(o.end for o in ops if o.kind == PROG) + ssd.t_status_us
    ops.append(Op(CTRL, t0 * 0.4, end))
    return ops


def read_ops(ssd: Ssd, size_bytes: int, rng) -> list[Op]:
    order = ssd.order()
    pages = pages_of(size_bytes, ssd.page_bytes)
    units = -(-pages // ssd.read_pages)
    t = ssd.t_host_us
    ops: list[Op] = []
    out_free = t  # the host link
    sense_free = t
    xfer_done = t
    host_page = ssd.page_bytes / ssd.host_mb_s
    for u in range(units):
        first = u * ssd.read_pages
        pkgs = [(first + i) % ssd.packages for i in range(ssd.read_pages)]  # the unit's pages, striped
        start = sense_free if ssd.cache_read else max(sense_free, xfer_done + ssd.t_cmd_us)
        t_r = ssd.t_read_us * rng.uniform(0.97, 1.03)
        for k in sorted(set(pkgs)):
            ops.append(Op(SENSE, start, start + t_r, package=k, weight=pkgs.count(k)))
        sense_end = start + t_r
        chan_t: dict[int, float] = {}
        a_min = max(sense_end, xfer_done)
        for k in pkgs:
            c = order[k][0]
            a = max(a_min, chan_t.get(c, a_min))
            ops.append(Op(XFER, a, a + ssd.t_io_page_us, channel=c))
            chan_t[c] = a + ssd.t_io_page_us
        xfer_done = max(chan_t.values())
        # the unit goes to the host once it is in the controller's buffer
        out_free = max(out_free, xfer_done) + ssd.read_pages * host_page
        ops.append(Op(HOST, out_free - ssd.read_pages * host_page, out_free))
        sense_free = sense_end + ssd.t_cmd_us
    ops.append(Op(CTRL, ssd.t_host_us * 0.4, max(out_free, xfer_done) + ssd.t_status_us))
    return ops


def duration_us(ops: list[Op]) -> float:
    return max(o.end for o in ops if o.kind == CTRL)
