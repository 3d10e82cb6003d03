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
