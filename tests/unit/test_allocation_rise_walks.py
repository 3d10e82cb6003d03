"""Which walk the rise of a one-unit write names, on waveforms drawn here from 003 §4.2.

A controller that sends a package's pages in a row (package-major) holds the package's
channel for dies × t_xfer; the next package on the *same* channel cannot take its first
page before that, whatever the selection delay.  A die-major controller switches package
at every page, so it can never space two packages' starts by hundreds of µs without
spending as long between every page (and the write would end far later).  Nothing here
comes from charz's simulator: the currents and times are stated below.
"""

import numpy as np
import pytest

from charz.analysis._rise import unit_rise

pytestmark = pytest.mark.unit

DT_US = 2.0
T_XFER = 81.0  # one 4 KiB page over the channel, µs
T_PROG = 1400.0
DIES = 4


def draw(first_pages_us, channels, *, repeats=4, seed=1, noise=0.003):
    """Packages of DIES dies, package-major: package k's pages cross its channel back to back
    from ``first_pages_us[k]``; it programs (one current, dies do not add) from the end of its
    first page to a program time after its last page.  Busy 50 mA, transfer 15 mA per busy
    channel, program 40 mA per package (±10 %), a 22 µs ISPP sawtooth, noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(-200.0, 3200.0, DT_US)
    rows, ends = [], []
    amps = [0.040, 0.044]
    for _ in range(repeats):
        u = t - rng.uniform(-2, 2)
        end = max(first_pages_us) + DIES * T_XFER + T_PROG * rng.uniform(1.0, 1.05) + 8
        w = 0.050 * ((u > min(first_pages_us) - 30) & (u < end))
        busy_ch: dict[int, np.ndarray] = {}
        for s, c, a in zip(first_pages_us, channels, amps):
            on_ch = (u > s) & (u < s + DIES * T_XFER)
            busy_ch[c] = busy_ch.get(c, np.zeros(u.size, bool)) | on_ch
            prog = (u > s + T_XFER) & (u < s + DIES * T_XFER + T_PROG * rng.uniform(0.97, 1.03))
            w = w + a * prog * (1 + 0.15 * (((u - s) / 22.0) % 1.0 - 0.5) * 2)
        for on_ch in busy_ch.values():
            w = w + 0.015 * on_ch
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append(end * 1e-6)
    return np.array(rows), t * 1e-6, np.array(ends)


def rise(first_pages_us, channels):
    w, t, e = draw(first_pages_us, channels)
    return unit_rise(w, t, e, unit_pages=2 * DIES, page_size_bytes=4096, channels=2, packages=8,
                     t_xfer_page_us=T_XFER, t_prog_us=T_PROG)


def test_starts_closer_than_a_package_major_channel_hold_are_separate_channels():
    # 259 µs apart: 3 transfers and a 16 µs selection delay — a controller that sends one
    # page at a time.  Four pages on one channel take 324 µs, so a shared channel cannot
    # start the second package this early (package-major), and a die-major controller
    # would switch package after every page (dev seed 121 read "alike" before).
    r = rise([40.0, 40.0 + 3 * T_XFER + 16.0], [0, 1])
    assert r.packages_per_unit == 2, r.reason
    assert r.scheme == "channel-only", r.scheme_reason


def test_starts_a_whole_channel_hold_apart_do_not_name_separate_channels():
    # 324 µs apart: what a shared channel gives, and what separate channels give with a
    # selection delay as long as the package's pages — the rise must not call it channel-only
    r = rise([40.0, 40.0 + DIES * T_XFER], [0, 0])
    assert r.packages_per_unit == 2, r.reason
    assert r.scheme != "channel-only", r.scheme_reason


def draw_die_major(channels, t_xfer, switch, dies, *, t_prog=900.0, repeats=4, seed=2, noise=0.003):
    """A die-major controller: one page to each package in turn, round after round; each page
    waits for its channel and a switch delay after the previous page.  A package programs
    (one current) from the end of its first page to a program time after its last page."""
    pages, cursor, free = [], 40.0, {}
    for d in range(dies):
        for k, c in enumerate(channels):
            start = max(cursor, free.get(c, 0.0))
            pages.append((k, c, start))
            free[c], cursor = start + t_xfer, start + switch
    rng = np.random.default_rng(seed)
    t = np.arange(-200.0, 2200.0, DT_US)
    rows, ends = [], []
    for _ in range(repeats):
        u = t - rng.uniform(-2, 2)
        last = max(s for _, _, s in pages) + t_xfer + t_prog * rng.uniform(1.0, 1.05)
        w = 0.050 * ((u > 10) & (u < last + 8))
        for s in (s for _, _, s in pages):
            w = w + 0.020 * ((u > s) & (u < s + t_xfer))  # one channel moving a page
        for k in range(len(channels)):
            mine = [s for kk, _, s in pages if kk == k]
            on = (u > mine[0] + t_xfer) & (u < mine[-1] + t_xfer + t_prog * rng.uniform(0.97, 1.03))
            w = w + 0.026 * (1 + 0.1 * k) * on * (1 + 0.15 * (((u - mine[0]) / 22.0) % 1.0 - 0.5) * 2)
        rows.append(w + rng.normal(0, noise, u.size))
        ends.append((last + 8) * 1e-6)
    return np.array(rows), t * 1e-6, np.array(ends)


def test_a_die_major_unit_is_read_with_its_pages_dealt_round_after_round():
    # 4 packages on channels 0-1-0-1 (channel priority, 2 channels × 2 ways), 2 dies each,
    # 70 µs pages, 16 µs between pages: first pages at 0, 16, 70, 86 µs, second pages at
    # 140, 156, 210, 226 µs.  Read as each package's pages back to back, the transfers of
    # the second round land where no page moves, and the walk came out wrong or not at all
    # (datasheet dev seed 108: two packages fitted as well as four, way priority ahead).
    w, t, e = draw_die_major((0, 1, 0, 1), 70.0, 16.0, 2)
    r = unit_rise(w, t, e, unit_pages=8, page_size_bytes=16384, channels=2, packages=8,
                  t_xfer_page_us=70.0, t_prog_us=900.0)
    assert r.packages_per_unit == 4, r.reason
    assert r.scheme == "channel-priority", r.scheme_reason
