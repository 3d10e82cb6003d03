"""Sub-unit writes as a second look at the walk: the read-modify-write's read-out.

A write smaller than the I/O unit still programs a whole unit.  A drive that keeps the
unit's other pages (read-modify-write, 003 §5.5 Fig. 16) first reads the *missing* pages
out of the array — the phase shrinks as the write grows — and only then programs.  The
read-out is an array read (t_R, all the unit's packages at once) followed by the missing
pages crossing their packages' channels; pages on different channels move at once, pages
on one channel one after the other.  So its length is

    R(r) = a + t_xfer × (missing pages on the unit's busiest channel)

for a write of ``r`` pages into the last unit, ``a`` the array read and commands.  How the
missing pages fall on channels is the walk: a unit on separate channels has at most
``dies`` of them on any channel, a unit whose packages share a channel piles them up.
Full-unit durations can tie between walks (the switch delay trades against the channel
sharing); the read-outs of the sub-unit sizes do not.

Three things no datasheet says are left open, each as a rival the answer must beat:
which pages a partial write leaves missing (the controller deals a unit package by package
or die by die), whether the drive reads at all (padding: no read-out), and whether the
read-out could be one page after another over one bus (then its length grows by t_xfer per
missing page whatever the walk, exactly as if every package shared one channel).  The last
is why every walk is also fitted read one page at a time: a shared channel is named only
where no walk on separate channels, read that way (or any other), explains the sizes too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from charz.analysis._latency import prefix_end_us

PACKAGE_MAJOR, DIE_MAJOR_DEAL, ONE_BUS, NO_READ = "package-major", "die-major", "one bus", "none"
# the array read and commands (tR 25-100 µs and more), less what the full-unit fit's time origin
# already holds: its visits may go once their first page starts to arrive, while the read-out
# starts with the command, one page's host time earlier at most (and a few µs of edges)
READ_GRID_US = np.arange(0.0, 300.1, 3.0)
EDGE_SLACK_US = 10.0
MISFIT = 30.0  # reduced χ² beyond which no walk explains the sizes (as for full units)
RESOLUTION_SHARE = 0.5  # the best fit's rms on the sub-unit sizes, at most this share of a page transfer
MAX_UNITS = 3  # sub-unit sizes of the first units: the pattern over r repeats unit by unit
MAX_SIZES = 24  # spread over the sizes: the cost is sizes × walks × read-outs passes
PADDED_RMS_RATIO = 2.0  # a padded unit's rivals must miss by this × its rms (the ruled-out margin)


@dataclass(frozen=True)
class WalkVisits:
    """One fitted walk as the sub-unit model needs it."""

    scheme: str
    name: str
    channel: np.ndarray  # per visit
    package: np.ndarray
    packages_per_unit: int
    pages_per_visit: int  # dies (package-major visits) or 1 (die-major visits)
    visits_per_unit: int
    params_us: dict  # t_xfer_page_us, t_switch_us, t_prog_us, offset_us from the full-unit fit
    chi2_full: float


@dataclass(frozen=True)
class SubunitFit:
    scheme: str
    name: str
    readout: str
    chi2: float  # full-unit χ² + sub-unit χ²
    rms_sub_us: float
    read_us: float  # the fitted constant a
    switch_us: float


def busiest_channel_pages(unit_channels: np.ndarray, dies: int, present: int, deal: str) -> int:
    """Pages missing after the first ``present`` of a unit, on its busiest channel.

    ``unit_channels`` holds the channel of each of the unit's packages in walk order; a
    package-major controller fills package by package (page q on package q // dies), a
    die-major one deals one page to each package in turn (page q on package q mod k).

    Example
    -------
    Four packages, two on each of two channels, one die; one page written, three missing:

    >>> busiest_channel_pages(np.array([0, 0, 1, 1]), 1, 1, "package-major")
    2
    >>> busiest_channel_pages(np.array([0, 1, 2, 3]), 1, 1, "package-major")
    1
    """
    unit_channels = np.asarray(unit_channels, dtype=np.intp)
    k = unit_channels.size
    q = np.arange(present, k * dies)
    if q.size == 0:
        return 0
    pkg = q // dies if deal == PACKAGE_MAJOR else q % k
    return int(np.bincount(unit_channels[pkg]).max())


def _pages_on_busiest(walk: WalkVisits, units: int, present: int, unit_pages: int, deal: str) -> int:
    if deal == ONE_BUS:
        return unit_pages - present
    # the unit's first k visits are its k packages, whichever way the walk deals its pages
    first = (units - 1) * walk.visits_per_unit
    k = walk.packages_per_unit
    return busiest_channel_pages(walk.channel[first:first + k], unit_pages // k, present, deal)


def sub_sizes(size_pages: np.ndarray, unit_pages: int, rounds: int) -> np.ndarray:
    """The sub-unit sizes compared: those of the first units, and none whose units take a
    package again (``rounds`` units fit on distinct packages): a reused package's wait,
    shortened by a cache register no walk models, would hide the read-out."""
    sub = np.unique(size_pages[(size_pages % unit_pages) != 0])
    sub = sub[-(-sub // unit_pages) <= min(MAX_UNITS, rounds)]
    if sub.size > MAX_SIZES:
        sub = sub[np.unique(np.linspace(0, sub.size - 1, MAX_SIZES).round().astype(int))]
    return sub


SWITCH_GRID_US = np.concatenate([[0.0], np.geomspace(1.0, 300.0, 31)])  # ~20 % steps


@dataclass(frozen=True)
class Durations:
    """Measured medians, weights and sizes (pages) of one kind of request."""

    size_pages: np.ndarray
    y_us: np.ndarray
    weight: np.ndarray


def _ready(n: int, pages_per_visit: int, last_page: int, page_bytes: int, rate: float | None):
    """Host data times, as in the full-unit fit: a visit may go once its first page starts
    to arrive; padding pages need no host data (ready with the last page sent)."""
    if not rate:
        return None
    return np.minimum(np.arange(n) * pages_per_visit, last_page) * page_bytes / rate * 1e6


def fit_subunit(walks: list[WalkVisits], full: Durations, sub: Durations, unit_pages: int, page_bytes: int,
                host_rate_bytes_per_s: float | None, t_switch_us: float | None, max_offset_us: float) -> list[SubunitFit]:
    """Every walk with every read-out (dealt package- or die-major over the unit's channels,
    one page at a time over one bus, none) fitted jointly to the full-unit and the sub-unit
    sizes: the transfer and program times held at the walk's fit (given), the switch delay
    (unless given), the overhead and the read's constant on grids.  Best first."""
    wsum = full.weight.sum()
    host_page_us = page_bytes / host_rate_bytes_per_s * 1e6 if host_rate_bytes_per_s else 0.0
    read_grid = READ_GRID_US - host_page_us - EDGE_SLACK_US
    out = []
    for walk in walks:
        p = walk.params_us
        # the grid, and finely about the walk's own full-unit fit: a walk must not lose for the
        # grid missing its switch delay
        near = np.clip(p["t_switch_us"] + np.linspace(-12.0, 12.0, 13), 0.0, None)
        switch = np.unique(np.concatenate([SWITCH_GRID_US, near])) if t_switch_us is None else np.array([float(t_switch_us)])
        t_reg = walk.pages_per_visit * p["t_xfer_page_us"]
        n_full = int(full.size_pages.max()) // unit_pages * walk.visits_per_unit
        if n_full > walk.channel.size:
            continue
        ends = prefix_end_us(walk.channel[:n_full], walk.package[:n_full], t_reg, switch, p["t_prog_us"],
                             _ready(n_full, walk.pages_per_visit, 10**9, page_bytes, host_rate_bytes_per_s))
        ends = np.atleast_2d(ends)[:, full.size_pages // unit_pages * walk.visits_per_unit - 1]
        offset = np.clip(((full.y_us - ends) * full.weight).sum(axis=-1) / wsum, 0.0, max_offset_us)
        chi2_full = (full.weight * (full.y_us - ends - offset[:, None]) ** 2).sum(axis=-1)  # (S,)
        for deal in (PACKAGE_MAJOR, DIE_MAJOR_DEAL, ONE_BUS, NO_READ):
            if deal == DIE_MAJOR_DEAL and unit_pages == walk.packages_per_unit:
                continue  # one page per package: both deals leave the same pages missing
            grid = read_grid if deal != NO_READ else np.zeros(1)
            pred = np.full((switch.size, grid.size, sub.size_pages.size), np.inf)
            for j, s in enumerate(sub.size_pages):
                units = -(-int(s) // unit_pages)
                n = units * walk.visits_per_unit
                if n > walk.channel.size:
                    continue  # the walk was enumerated for fewer units: no prediction
                present = int(s) - (units - 1) * unit_pages
                m = 0 if deal == NO_READ else _pages_on_busiest(walk, units, present, unit_pages, deal)
                start = grid[None, :] + m * p["t_xfer_page_us"]
                pred[:, :, j] = prefix_end_us(walk.channel[:n], walk.package[:n], t_reg, switch[:, None],
                                              p["t_prog_us"], _ready(n, walk.pages_per_visit, int(s) - 1, page_bytes,
                                                                     host_rate_bytes_per_s), start)[..., -1]
            pred += offset[:, None, None]
            with np.errstate(invalid="ignore"):
                chi2 = chi2_full[:, None] + (sub.weight * (sub.y_us - pred) ** 2).sum(axis=-1)
            i, a = np.unravel_index(int(np.argmin(chi2)), chi2.shape)
            rms = float(np.sqrt(np.mean((sub.y_us - pred[i, a]) ** 2)))
            out.append(SubunitFit(walk.scheme, walk.name, deal, float(chi2[i, a]), rms, float(grid[a]),
                                  float(switch[i])))
    return sorted(out, key=lambda f: f.chi2)


DESCRIBE = {PACKAGE_MAJOR: "missing pages dealt package by package over the unit's channels",
            DIE_MAJOR_DEAL: "missing pages dealt die by die over the unit's channels",
            ONE_BUS: "a read-out one page after another over one bus",
            NO_READ: "no read-out (a padded unit)"}


def decide_subunit(fits: list[SubunitFit], dof: int, margin_needed: float, rms_ratio: float,
                   floor_us: float, t_xfer_us: float, as_full_rms_us: float | None = None) -> tuple[str | None, str]:
    """The scheme the sub-unit sizes name, or None, and why.

    The best fit must read out over the unit's channels (or be a padded unit, whose
    padding pages cross them at the controller's pace; its rivals must then miss by
    :data:`PADDED_RMS_RATIO` × its rms), and beat every walk of another
    scheme *with any read-out* — over the
    unit's channels dealt either way, one page after another over one bus, or none — by
    ``margin_needed`` in χ² (scaled by the best's reduced χ² when above 1) and by
    ``rms_ratio`` in rms on the sub-unit sizes.  A one-bus read-out makes every walk's
    read-out look like a shared channel's, so a walk on separate channels read that way
    stays a rival of the shared walk (module docstring); where no read-out of any other
    scheme's walk comes near, the scheme stands whichever read-out fits it best.
    ``as_full_rms_us`` is how far the sub-unit sizes are from the measured full units they
    pad: a controller that sends padding at the host's pace makes them equal for every walk,
    so a padded fit names nothing where that explains them about as well (within the ratio)."""
    if not fits or not np.isfinite(fits[0].chi2):
        return None, "no sub-unit size to compare"
    best = fits[0]
    if best.readout == ONE_BUS:
        # a read-out one page after another shows no channels: any walk read so looks alike
        return None, f"the sub-unit sizes fit best with {DESCRIBE[best.readout]}: they show no channels"
    # A padded unit has no read-out, but its padding pages need no host data: they cross the
    # unit's channels at the controller's pace, not the host's, so a sub-unit write shows the
    # channel sharing that a host slower than the switch hides in full units (datasheet 339:
    # 14 µs a page from the host, 7 µs between packages; a 2 × 2 block's second package on a
    # channel waits a 49 µs transfer).  What is left between walks is the host timing's model
    # error (datasheet 485: 6 against 9 µs rms, the wrong walk best), so a padded fit names a
    # scheme only by the margins that rule a scheme out: every other scheme's walk, with any
    # read-out, misses by PADDED_RMS_RATIO × the best's rms.
    ratio = PADDED_RMS_RATIO if best.readout == NO_READ else rms_ratio
    if best.readout == NO_READ and (as_full_rms_us is None
                                    or as_full_rms_us < ratio * max(best.rms_sub_us, floor_us)):
        return None, ("the sub-unit sizes fit best as padded units that last about as long as the full units "
                      "they pad (padding sent at the host's pace shows no channels)")
    if best.rms_sub_us > RESOLUTION_SHARE * t_xfer_us:
        # the read-out is counted in whole page transfers: a fit that misses the sub-unit
        # sizes by more than half of one cannot say which channel a page crossed (datasheet
        # 208, TLC pages 0.68-1.32 × 1302 µs: 46 µs rms against a 46 µs transfer, wrong)
        return None, (f"the sub-unit sizes fit no walk to within half a page transfer ({best.rms_sub_us:.0f} µs rms, "
                      f"transfer {t_xfer_us:.0f} µs): they cannot count pages on a channel")
    rivals = [f for f in fits if f.scheme != best.scheme]
    if not rivals:
        return None, "no walk of another scheme to compare"
    rival = rivals[0]
    if best.chi2 / max(1, dof) > MISFIT:
        return None, (f"no walk explains the sub-unit sizes (best reduced χ² {best.chi2 / max(1, dof):.0f}, "
                      f"{best.rms_sub_us:.0f} µs rms on them)")
    scale = max(1.0, best.chi2 / max(1, dof))
    margin = (rival.chi2 - best.chi2) / scale
    what = "padded writes" if best.readout == NO_READ else "read-modify-write read-out"
    why = (f"the sub-unit sizes' {what}: {best.scheme} ({best.name}, {DESCRIBE[best.readout]}, "
           + ("" if best.readout == NO_READ else f"read {best.read_us:.0f} µs, ")
           + f"switch {best.switch_us:.0f} µs) fits them with {best.rms_sub_us:.0f} µs rms; "
           f"best {rival.scheme} walk ({DESCRIBE[rival.readout]}) is worse by Δχ² = {margin:.0f} "
           f"({rival.rms_sub_us:.0f} µs rms)")
    if margin >= margin_needed and rival.rms_sub_us >= ratio * max(best.rms_sub_us, floor_us):
        return best.scheme, why
    return None, why + " — not decisive"
