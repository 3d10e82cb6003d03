"""Page allocation scheme from request durations (003 §4.2, §5.3, §5.5).

003 computes the duration of one request size under three layouts and picks
the closest.  Here every distinct way the drive could walk its channel × way
grid (blocks of ``c × w`` packages in channel- or way-priority order, tiling
the grid) predicts the duration of every measured full-unit request with the
latency recurrence; timing parameters that were not given are fitted, the
constant overhead (command decode, edge placement) always is.  The scheme is
the label of the best walk, and it is only reported when every walk with a
different label fits clearly worse.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import minimize

from charz.analysis._allocation_subunit import Durations, WalkVisits, decide_subunit, fit_subunit, sub_sizes
from charz.analysis._latency import CHANNEL_ONLY, Layout, prefix_end_paths_us, prefix_end_us, visit_sequence
from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED
from charz.analysis._steps import summarize_sizes

DECISIVE = 25.0  # Δχ² (scaled) for a confident answer
SUGGESTIVE = 12.0
MISFIT = 30.0  # reduced χ² beyond which no walk explains the durations
MIN_RMS_RATIO = 1.5  # the runner-up's rms residual over the best's, for any answer
RULE_OUT_RMS_RATIO = 2.0  # a scheme whose every walk misses by twice the best's rms is ruled out
MODEL_FLOOR_US = 3.0  # durations are never known better than this (edge placement, program-time spread)

BOUNDS_US = {"t_xfer_page_us": (1.0, 500.0), "t_switch_us": (0.0, 300.0), "t_prog_us": (100.0, 20_000.0)}
MAX_OFFSET_SHARE = 0.3  # the fixed overhead is a small part of a one-unit write; NAND time is the rest


@dataclass(frozen=True)
class Timing:
    """Timing parameters; ``None`` means unknown (to be fitted)."""

    t_xfer_page_us: float | None = None
    t_switch_us: float | None = None
    t_prog_us: float | None = None
    host_rate_bytes_per_s: float | None = None

    def free(self) -> list[str]:
        return [name for name in BOUNDS_US if getattr(self, name) is None]


@dataclass(frozen=True)
class CandidateFit:
    scheme: str
    layouts: tuple[str, ...]  # every block layout producing this walk, e.g. "4×1 channel-priority"
    params_us: dict[str, float]  # t_xfer_page_us, t_switch_us, t_prog_us, offset_us
    predicted_us: np.ndarray  # per measured size
    chi2: float
    rms_residual_us: float


@dataclass(frozen=True)
class AllocationResult:
    scheme: str | None
    confidence: str
    reason: str
    sizes_pages: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    measured_us: np.ndarray = field(default_factory=lambda: np.empty(0))
    measured_se_us: np.ndarray = field(default_factory=lambda: np.empty(0))
    candidates: tuple[CandidateFit, ...] = ()
    margin: float | None = None
    # schemes the durations contradict even where they name none (every walk of the scheme
    # misses by twice the best walk's rms and by Δχ² >= SUGGESTIVE): a second view that
    # names one of them disagrees with the durations
    ruled_out: tuple[str, ...] = ()
    ruled_out_reason: str = ""
    by_subunit: bool = False  # named by the sub-unit sizes (the full units tie)


def enumerate_walks(channels: int, ways: int, packages_per_unit: int, n_visits: int, dies_per_package: int = 1):
    """Distinct package walks of a ``channels × ways`` drive, with their 003 names.

    Returns a list of ``(scheme, [layout names], channel, package)``.

    Example
    -------
    >>> [w[0] for w in enumerate_walks(8, 2, 4, 20)]
    ['channel-only', 'way-priority', 'channel-priority', 'channel-only']
    """
    seen: dict[bytes, int] = {}
    walks: list[tuple[str, list[str], np.ndarray, np.ndarray]] = []
    for c in [d for d in range(1, channels + 1) if channels % d == 0]:
        for w in [d for d in range(1, ways + 1) if ways % d == 0]:
            for order in ("channel-priority", "way-priority"):
                if (c == 1 or w == 1) and order == "way-priority":
                    continue  # same walk as channel priority
                layout = Layout(channels, ways, c, w, order)
                ch, pkg = visit_sequence(layout, n_visits)
                key = pkg.astype(np.int32).tobytes()
                name = f"{c}×{w} {order}"
                if key in seen:
                    walks[seen[key]][1].append(name)
                    continue
                seen[key] = len(walks)
                walks.append((layout.scheme(packages_per_unit, dies_per_package), [name], ch, pkg))
    return walks


DIE_MAJOR = " (die-major)"  # suffix of a layout whose controller deals one page per package in turn


def die_major_walks(walks, packages_per_unit: int, dies_per_package: int, units: int):
    """The same walks with the unit's pages dealt one die at a time (die-major dispatch).

    A package-major controller sends each package all its dies' pages in one visit; a
    die-major one sends one page to each of the unit's packages in turn, then the next die's
    page to each again, so one die of a package programs while the next one's page crosses
    the channel.  Each visit then carries one page, and the resource a page waits for is its
    own die (the channel is still the package's).  Returned as walks of one-page visits over
    ``(package, die)`` slots — package ``p``'s die ``d`` is slot ``p × dies + d`` — for
    :func:`_fit_walks` with one page per visit.

    Example
    -------
    >>> w = enumerate_walks(2, 1, 2, 2)
    >>> [(ch.tolist(), pkg.tolist()) for _, _, ch, pkg in die_major_walks(w, 2, 2, 1)]
    [([0, 1, 0, 1], [0, 2, 1, 3])]
    """
    k, dies = packages_per_unit, dies_per_package
    v = np.arange(units * k * dies)
    unit, within = np.divmod(v, k * dies)
    die, i = np.divmod(within, k)
    visit = unit * k + i  # the package visit (in the walk) this page belongs to
    return [(scheme, [n + DIE_MAJOR for n in names], ch[visit], pkg[visit] * dies + die)
            for scheme, names, ch, pkg in walks]


_GRID = {  # coarse grids per free parameter (log-spaced where ratios matter)
    "t_xfer_page_us": lambda n: np.geomspace(1.0, 500.0, n),
    "t_switch_us": lambda n: np.concatenate([[0.0], np.geomspace(1.0, 300.0, n - 1)]),
    "t_prog_us": lambda n: np.geomspace(100.0, 20_000.0, n),
}
# Points per free parameter.  The program time decides where a reused package makes a request
# wait, a sharp feature, so it gets the densest axis (about 3 % steps when all three are free).
_POINTS = {
    0: {},
    1: {"t_xfer_page_us": 1200, "t_switch_us": 1200, "t_prog_us": 1200},
    2: {"t_xfer_page_us": 40, "t_switch_us": 40, "t_prog_us": 240},
}
_POINTS_3 = {"t_xfer_page_us": 18, "t_switch_us": 18, "t_prog_us": 160}
_STARTS = 8  # local refinements from the best grid points


_REFINE_ROUNDS = 40  # Gauss-Newton rounds at most (each halves a step that did not help)
_MIN_STEP = 1 / 64  # a step shrunk below this share of its Gauss-Newton length: converged


def _fit_walks(walks, units, k, dies, page_bytes, timing: Timing, y, w):
    """Best parameters for every walk: a coarse vectorised grid per walk, then a
    Gauss-Newton refinement from the best few points of every walk at once.

    The constant overhead (command decode, where the edges are placed) is solved in closed
    form for every parameter set, so only the free timing parameters are searched.  The
    duration of a request is piecewise linear in the timing parameters (a ready time plus
    whole numbers of transfers, switch delays and program times along its critical path,
    :func:`prefix_end_paths_us`), so the least-squares problem is exactly quadratic on each
    piece: a step solves it in closed form, and a step that crosses into a piece where the
    fit is worse is halved until it helps (or becomes negligible).
    Returns ``(chi2, params, predicted)`` per walk, in the order of ``walks``.
    """
    free = timing.free()
    n_visits = int(units.max()) * k
    idx = units * k - 1
    ready = None
    if timing.host_rate_bytes_per_s:
        ready = np.arange(n_visits) * dies * page_bytes / timing.host_rate_bytes_per_s * 1e6
    fixed = {name: getattr(timing, name) for name in BOUNDS_US if name not in free}
    max_offset = MAX_OFFSET_SHARE * float(y.min())
    wsum = w.sum()

    def chi2_of(pred):
        # Best constant overhead in closed form, held to what is physical (0 … 30 % of the
        # shortest request): otherwise a walk could hide its mismatch in a huge "overhead".
        offset = np.clip(((y - pred) * w).sum(axis=-1) / wsum, 0.0, max_offset)
        return (w * (y - pred - offset[..., None]) ** 2).sum(axis=-1), offset

    if len(free) == 2 and "t_prog_us" not in free:
        counts = {name: 240 for name in free}
    else:
        counts = _POINTS_3 if len(free) == 3 else _POINTS[len(free)]
    axes = [_GRID[name](counts[name]) for name in free]
    mesh = [m.ravel() for m in np.meshgrid(*axes, indexing="ij")] if axes else []
    size = max(1, mesh[0].size if mesh else 1)
    params = {**{n: np.full(size, v) for n, v in fixed.items()}, **dict(zip(free, mesh))}
    lo = np.array([BOUNDS_US[n][0] for n in free])
    hi = np.array([BOUNDS_US[n][1] for n in free])

    # 1. the grid, walk by walk (each is one vectorised pass of the recurrence)
    chs = np.stack([ch[:n_visits] for _, _, ch, _ in walks])
    pkgs = np.stack([pkg[:n_visits] for _, _, _, pkg in walks])
    row_walk, row_x = [], []
    for j in range(len(walks)):
        ends = np.atleast_2d(prefix_end_us(chs[j], pkgs[j], dies * params["t_xfer_page_us"], params["t_switch_us"],
                                           params["t_prog_us"], ready))
        chi2, _ = chi2_of(ends[:, idx])
        picks = np.argsort(chi2, kind="stable")[:_STARTS] if free else np.array([0])
        for i in picks:
            row_walk.append(j)
            row_x.append([params[n][i] for n in free])
    row_walk = np.array(row_walk)
    x = np.array(row_x, dtype=np.float64).reshape(row_walk.size, len(free))

    def evaluate(rows, xs):
        p = {**{n: np.full(rows.size, v) for n, v in fixed.items()}, **{n: xs[:, i] for i, n in enumerate(free)}}
        e, c = prefix_end_paths_us(chs[row_walk[rows]], pkgs[row_walk[rows]], dies * p["t_xfer_page_us"],
                                   p["t_switch_us"], p["t_prog_us"], ready)
        e, c = e[:, idx], c[:, idx]
        # d(end)/d(parameter): the register transfer is one page per die
        jac = {"t_xfer_page_us": dies * c[..., 0], "t_switch_us": c[..., 1], "t_prog_us": c[..., 2]}
        return e, np.stack([jac[n] for n in free], axis=-1) if free else np.zeros(e.shape + (0,))

    def solve(jac, z, with_offset):
        a = np.concatenate([jac, np.ones(z.shape + (1,))], axis=-1) if with_offset else jac
        m = np.einsum("rki,k,rkj->rij", a, w, a)
        b = np.einsum("rki,k,rk->ri", a, w, z)
        # a parameter no end depends on (all its counts 0) gets no step, not a singular matrix
        ridge = 1e-12 * np.maximum(1.0, np.einsum("rii->r", m))[:, None, None] * np.eye(a.shape[-1])
        return np.linalg.solve(m + ridge, b[..., None])[..., 0]

    def gn_step(xs, e, jac):
        """min over (dx, offset) of Σ w (y − e − J dx − offset)², with the offset held to its
        bounds and a parameter that sits on a bound and is pushed past it held there."""
        z = y - e
        held = np.zeros(jac.shape[0::2], dtype=bool)
        for _ in range(2):
            j = np.where(held[:, None, :], 0.0, jac)
            sol = solve(j, z, True)
            dx, off = sol[:, :-1], sol[:, -1]
            pinned = (off < 0.0) | (off > max_offset)
            if pinned.any():
                o = np.clip(off[pinned], 0.0, max_offset)
                dx[pinned] = solve(j[pinned], z[pinned] - o[:, None], False)
            push = ((xs <= lo) & (dx < 0)) | ((xs >= hi) & (dx > 0))
            if not (push & ~held).any():
                break
            held |= push
        return np.where(held, 0.0, dx)

    # 2. Gauss-Newton from every start of every walk at once
    rows = np.arange(row_walk.size)
    e, jac = evaluate(rows, x)
    best_chi2, _ = chi2_of(e)
    if free:
        dx = gn_step(x, e, jac)
        scale = np.ones(rows.size)
        live = np.ones(rows.size, dtype=bool)
        for _ in range(_REFINE_ROUNDS):
            act = np.flatnonzero(live)
            if act.size == 0:
                break
            # the whole step, and (with several free parameters) each parameter's share of it
            # alone: at a kink of the piecewise-linear durations the joint step may cross into
            # a worse piece where one coordinate's step would still help
            steps = scale[act, None] * dx[act]
            tries = [steps] + ([steps * np.eye(len(free))[i] for i in range(len(free))] if len(free) > 1 else [])
            trial_all = np.clip(np.concatenate([x[act] + d for d in tries]), lo, hi)
            e_all, jac_all = evaluate(np.tile(act, len(tries)), trial_all)
            chi_all = chi2_of(e_all)[0].reshape(len(tries), act.size)
            pick = np.argmin(chi_all, axis=0)
            at = pick * act.size + np.arange(act.size)
            trial, e_t, jac_t, chi_t = trial_all[at], e_all[at], jac_all[at], chi_all[pick, np.arange(act.size)]
            moved = np.abs(trial - x[act]).max(axis=1) > 1e-3
            better = moved & (chi_t < best_chi2[act] * (1 - 1e-12) - 1e-12)
            ok = act[better]
            x[ok], best_chi2[ok], scale[ok] = trial[better], chi_t[better], 1.0
            if ok.size:
                dx[ok] = gn_step(x[ok], e_t[better], jac_t[better])
            bad = act[~better]
            scale[bad] *= 0.5
            live[bad[(scale[bad] < _MIN_STEP) | ~moved[~better]]] = False
    best_rows = np.array([min(np.flatnonzero(row_walk == j), key=lambda r: best_chi2[r]) for j in range(len(walks))])
    e_best, _ = evaluate(best_rows, x[best_rows])
    chi2_best, offsets = chi2_of(e_best)
    out = []
    for j, r in enumerate(best_rows):
        p = {**fixed, **{n: float(x[r, i]) for i, n in enumerate(free)}}
        p = {name: float(p[name]) for name in BOUNDS_US}
        p["offset_us"] = float(offsets[j])
        out.append((float(chi2_best[j]), p, e_best[j] + offsets[j]))
    return out


def _ruled_out(fits: list[CandidateFit], scale: float) -> tuple[tuple[str, ...], str]:
    """Schemes none of whose walks comes near the best walk: each misses the durations by at
    least twice the best's rms (never counting the best as better than the 3 µs floor) and
    fits worse by Δχ² >= SUGGESTIVE on the best fit's scale.  What no walk models (lower and
    upper pages, die-major dispatch) misfits every walk alike; a walk that reuses packages
    or shares channels where the drive does not misses by far more."""
    best = fits[0]
    floor = max(best.rms_residual_us, MODEL_FLOOR_US)
    out, worst = [], []
    for label in sorted({f.scheme for f in fits} - {best.scheme}):
        theirs = [f for f in fits if f.scheme == label]
        closest = min(theirs, key=lambda f: f.rms_residual_us)
        if closest.rms_residual_us >= RULE_OUT_RMS_RATIO * floor and min(f.chi2 for f in theirs) - best.chi2 >= SUGGESTIVE * scale:
            out.append(label)
            worst.append(f"{label} walks miss by ≥ {closest.rms_residual_us:.0f} µs rms")
    why = "" if not out else (f"the durations rule out {', '.join(out)}: {'; '.join(worst)} where {best.scheme} "
                             f"({best.layouts[0]}) misses by {best.rms_residual_us:.0f} µs")
    return tuple(out), why


def _candidates(walks, fitted, y: np.ndarray) -> list[CandidateFit]:
    """Each walk's fit as a :class:`CandidateFit`, best first."""
    fits = [CandidateFit(scheme, tuple(names), params, pred, chi2, float(np.sqrt(np.mean((y - pred) ** 2))))
            for (scheme, names, _ch, _pkg), (chi2, params, pred) in zip(walks, fitted)]
    return sorted(fits, key=lambda f: f.chi2)


MIN_DOF_STRETCHED = 2  # sizes beyond the fitted parameters before a fit with a free transfer or program time decides


def _stretched(timing: Timing, dof: int) -> str:
    """Why a fit whose transfer or program time is free cannot decide with ``dof`` sizes to
    spare, or "" where it can.  With one size more than its parameters, a walk that puts the
    unit on other channels matches the durations by stretching those times (on a 4-channel
    drive whose units share a channel, channel-only fitted five sizes to 0 µs with the page
    transfer 4× too long and tPROG 13 % short, while the true walk missed by the 19 µs of its
    TLC page types)."""
    free = [n for n in ("t_xfer_page_us", "t_prog_us") if n in timing.free()]
    if not free or dof >= MIN_DOF_STRETCHED:
        return ""
    what = " and ".join({"t_xfer_page_us": "page transfer", "t_prog_us": "program"}[n] for n in free)
    return (f"with the {what} time fitted, {dof} size{'' if dof == 1 else 's'} beyond the fitted parameters "
            f"let a walk on other channels fit by stretching it; give the timing (datasheet) or sweep "
            f"{MIN_DOF_STRETCHED - dof} more unit{'' if MIN_DOF_STRETCHED - dof == 1 else 's'}")


def _subunit_view(fits, visits, k, packages: int, full: Durations, size_pages, duration_us, unit_pages, page_bytes, timing: Timing,
                  dof: int) -> tuple[str | None, str]:
    """The scheme the sub-unit sizes' read-out names (:mod:`_allocation_subunit`), or None.

    Only with the page transfer and program times given: the read-out's channel pattern is
    counted in page transfers, and a walk whose full-unit fit stretched the transfer time
    would stretch its read-out with it; and only for units over several packages."""
    if timing.t_xfer_page_us is None or timing.t_prog_us is None or k < 2:
        # (a unit on one package reads out over that package's channel whatever the walk:
        # what would be left to tell walks apart is the host timing's model error)
        return None, ""
    sub = sub_sizes(size_pages[np.isfinite(duration_us)], unit_pages, packages // k)
    if sub.size < 2:
        return None, ""
    keep = np.isin(size_pages, sub) & np.isfinite(duration_us)
    s = summarize_sizes(size_pages[keep], duration_us[keep])
    sub_d = Durations(s.size_pages.astype(np.int64), s.median, 1.0 / np.hypot(s.stderr, MODEL_FLOOR_US) ** 2)
    walk_visits = [WalkVisits(f.scheme, f.layouts[0], *visits[f.layouts][:2], k, visits[f.layouts][2],
                              visits[f.layouts][3], f.params_us, f.chi2) for f in fits]
    sub_fits = fit_subunit(walk_visits, full, sub_d, unit_pages, page_bytes, timing.host_rate_bytes_per_s,
                           timing.t_switch_us, MAX_OFFSET_SHARE * float(full.y_us.min()))
    # a controller may send a padded unit's padding at the host's pace: its sub-unit writes
    # then last as long as the full unit they pad (the first test family's does), whatever the walk
    full_of = dict(zip((full.size_pages // unit_pages).tolist(), full.y_us.tolist()))
    u = -(-sub_d.size_pages // unit_pages)
    has = np.array([int(x) in full_of for x in u], dtype=bool)
    as_full = (float(np.sqrt(np.mean((sub_d.y_us[has] - np.array([full_of[int(x)] for x in u[has]])) ** 2)))
               if has.any() else None)
    return decide_subunit(sub_fits, dof + s.size_pages.size - 1, SUGGESTIVE, MIN_RMS_RATIO, MODEL_FLOOR_US,
                          timing.t_xfer_page_us, as_full_rms_us=as_full)


def one_way_note(channels: int | None, packages: int | None, unit_pages: int | None) -> str | None:
    """What the scheme of a drive with one package per channel can only be, while the
    packages per unit is not known; ``None`` on drives with several ways.

    A one-way drive has no ways to walk: a unit over several packages has each on its own
    channel (channel-only), and a unit that fills the dies of one package keeps its pages on
    one channel, which 003 §5.2 calls way priority (Q Pro).  Which of the two it is, is the
    packages per unit (the dies' other face), not anything the durations add.

    Example
    -------
    >>> one_way_note(4, 4, 2).split(":")[0], "way-priority" in one_way_note(4, 4, 2)
    ('one package per channel', True)
    >>> one_way_note(4, 8, 2) is None
    True
    """
    if not channels or packages != channels:
        return None
    unit = f"the {unit_pages}-page unit" if unit_pages else "the unit"
    dies = f"{unit_pages} dies" if unit_pages else "dies"
    return (f"one package per channel: channel-only if {unit} spans more than one package, way-priority "
            f"(003 §5.2, Q Pro) if it fills one package's {dies} — it needs the packages per unit")


ONE_WAY_RMS_RATIO = RULE_OUT_RMS_RATIO  # as a ruled-out scheme: what no walk models misfits both alike


def one_way_scheme(size_pages: np.ndarray, duration_s: np.ndarray, *, channels: int, unit_pages: int,
                   page_size_bytes: int, timing: Timing) -> AllocationResult:
    """The scheme of a one-way drive (one package per channel) whose dies are not known, from
    the durations of each packages-per-unit the unit allows.

    On such a drive the scheme *is* the packages per unit: one package (the unit fills its
    dies, every page crossing one channel: way priority, 003 §5.2) or several (each on its own
    channel: channel-only).  Each split of the ``unit_pages`` into packages × dies is fitted as
    :func:`infer_allocation` fits a walk; a scheme is named where every split of the other
    scheme misses the durations by ``ONE_WAY_RMS_RATIO``× the best split's rms (never counting
    it better than 3 µs) and by Δχ² ≥ 12 (scaled) — the margins by which a scheme is ruled
    out — with the best split explaining the durations (reduced χ² ≤ 30) and, with the transfer
    or program time fitted, two sizes to spare.  It names a scheme, not the dies: splits of one
    scheme (2 or 4 packages) may fit alike.  Medium at most: one view.

    Example
    -------
    A 4-channel one-way drive, 4-page units on four packages (channel-only), t_xfer 100,
    switch 20, tPROG 600 µs: one unit ends at 3 switches + 1 transfer + tPROG, unit m at
    (4m − 1) switches + ...; a unit of one package would send 4 pages over one channel first.

    >>> from charz.analysis._latency import prefix_end_us
    >>> ch = np.arange(16) % 4
    >>> ends = 30 + prefix_end_us(ch, ch, 100.0, 20.0, 600.0)[[3, 7, 11, 15]]
    >>> r = one_way_scheme(np.repeat([4, 8, 12, 16], 3), np.repeat(ends, 3) * 1e-6, channels=4, unit_pages=4,
    ...                    page_size_bytes=4096, timing=Timing(100.0, None, 600.0))
    >>> r.scheme, r.confidence
    ('channel-only', 'medium')
    """
    splits = [ppu for ppu in range(1, min(channels, unit_pages) + 1) if unit_pages % ppu == 0 and channels % ppu == 0]
    if unit_pages < 2 or channels < 2 or len(splits) < 2:
        return AllocationResult(None, UNDETERMINED, "one package per channel, and only one split of the unit")
    fits = []
    for ppu in splits:
        r = infer_allocation(size_pages, duration_s, channels=channels, packages=channels,
                             dies_per_package=unit_pages // ppu, unit_pages=unit_pages,
                             page_size_bytes=page_size_bytes, timing=timing, refit_program_time=False)
        if not r.candidates:
            return AllocationResult(None, UNDETERMINED, r.reason)
        fits.append((ppu, min(r.candidates, key=lambda f: f.chi2), r))
    fits.sort(key=lambda t: t[1].chi2)
    (ppu, best, res), rivals = fits[0], [t for t in fits if t[1].scheme != fits[0][1].scheme]
    if not rivals:
        return AllocationResult(None, UNDETERMINED, "every split of the unit has the same name")
    n_sizes, n_free = res.measured_us.size, len(timing.free()) + 1
    dof = n_sizes - n_free
    stretched = _stretched(timing, dof)
    if dof < 1 or stretched:
        return AllocationResult(None, UNDETERMINED, stretched or f"{n_sizes} full-unit sizes for {n_free} fitted parameters")
    reduced = best.chi2 / dof
    r_ppu, rival, _ = rivals[0]
    margin = (rival.chi2 - best.chi2) / max(1.0, reduced)
    why = (f"one package per channel: the unit of {unit_pages} pages on {ppu} package(s) ({best.scheme}) fits "
           f"{n_sizes} full-unit sizes with {best.rms_residual_us:.0f} µs rms; on {r_ppu} package(s) "
           f"({rival.scheme}) it misses by {rival.rms_residual_us:.0f} µs rms (Δχ² = {margin:.0f})")
    if (reduced <= MISFIT and margin >= SUGGESTIVE
            and rival.rms_residual_us >= ONE_WAY_RMS_RATIO * max(best.rms_residual_us, MODEL_FLOOR_US)):
        return AllocationResult(best.scheme, MEDIUM, why, candidates=tuple(f for _, f, _ in fits), margin=margin)
    return AllocationResult(None, UNDETERMINED, why + " — not decisive", candidates=tuple(f for _, f, _ in fits),
                            margin=margin)


PROGRAM_TIME_RANGE = (0.5, 2.0)  # the critical path's program time, × the datasheet's typical


def program_time_refit(refit: AllocationResult, t_prog_typ_us: float, misfit: str) -> AllocationResult | None:
    """The durations refitted with the program time free, where the datasheet's typical
    misfits every walk; None where the refit does not bear on it.

    The recurrence holds each program to tPROG typ, but what a request's duration sees is
    the program on its critical path: MLC/TLC upper pages program slower than the typical
    (up to its max, ~2×), and where the walk keeps the same packages on the slow page every
    unit's end waits for it; a controller using cache program sends a reused package its
    next page while the previous one programs, so the reuse costs tPROG less a transfer.
    Both are one effective program time, between :data:`PROGRAM_TIME_RANGE` × the typical.
    Fitted so, a walk must win by the usual margins with the usual two sizes to spare (a
    free program time lets a wrong walk stretch it), and the answer is at most medium: the
    typical, which the datasheet gives, had to be set aside.  Returns the named scheme (with
    the refit's reason), else an undetermined result whose reason says what the refit found
    (the walks tie, or too few sizes), for the misfit's evidence.

    Example
    -------
    >>> r = AllocationResult("channel-only", HIGH, "channel-only fits", candidates=(
    ...     CandidateFit("channel-only", ("4×1",), {"t_prog_us": 560.0}, np.zeros(1), 1.0, 2.0),))
    >>> program_time_refit(r, 490.0, "no allocation explains").confidence
    'medium'
    >>> program_time_refit(r, 200.0, "no allocation explains") is None
    True
    """
    if not refit.candidates:
        return None
    t_fit = refit.candidates[0].params_us["t_prog_us"]
    lo, hi = PROGRAM_TIME_RANGE
    if not lo * t_prog_typ_us <= t_fit <= hi * t_prog_typ_us:
        return None
    why = (f" with tPROG {t_prog_typ_us:.0f} µs (typical); with the program time on the critical path fitted "
           f"({t_fit:.0f} µs, {t_fit / t_prog_typ_us:.2f}× the typical: upper pages, cache program)")
    if refit.scheme is None:
        # (the refit's advice to give the timing does not apply: the typical was given)
        return AllocationResult(None, UNDETERMINED, f"{why}: {refit.reason.split(' — ')[0]}"
                                + (" — not decisive" if " — " in refit.reason else ""))
    return replace(refit, confidence=MEDIUM if refit.confidence == HIGH else refit.confidence,
                   reason=f"{misfit}{why}: {refit.reason}")


def infer_allocation(
    size_pages: np.ndarray,
    duration_s: np.ndarray,
    *,
    channels: int,
    packages: int,
    dies_per_package: int,
    unit_pages: int,
    page_size_bytes: int,
    timing: Timing,
    refit_program_time: bool = True,
) -> AllocationResult:
    """Choose the allocation scheme whose predicted durations match the measured ones.

    Only requests that are whole multiples of the write I/O unit are used: smaller
    remainders start with a read-modify-write phase the recurrence does not model (the
    sub-unit view, :func:`_subunit_view`, looks at them where the full units tie).  Where
    the given tPROG misfits every walk, ``refit_program_time`` refits with the program time
    free (:func:`program_time_refit`); :func:`one_way_scheme` compares splits at the given
    time and turns it off.

    Example
    -------
    Durations built by hand from 003's MXP numbers (4 channels × 1 way walk, 1 to 4 units):

    >>> from charz.analysis._latency import Layout, visit_sequence, prefix_end_us
    >>> ch, pkg = visit_sequence(Layout(8, 2, 4, 1), 16)
    >>> truth = 40 + prefix_end_us(ch, pkg, 164, 33, 900)[[3, 7, 11, 15]]
    >>> r = infer_allocation(np.repeat([8, 16, 24, 32], 3), np.repeat(truth, 3) * 1e-6, channels=8,
    ...     packages=16, dies_per_package=2, unit_pages=8, page_size_bytes=4096, timing=Timing(82, None, 900))
    >>> r.scheme, r.confidence
    ('channel-only', 'high')
    """
    if channels < 1 or packages % channels:
        return AllocationResult(None, UNDETERMINED, f"{packages} packages do not spread evenly over {channels} channels")
    ways = packages // channels
    k_total = dies_per_package and unit_pages // dies_per_package
    if not k_total or unit_pages % dies_per_package:
        return AllocationResult(None, UNDETERMINED, "the I/O unit does not give every die a page")
    k = k_total
    size_pages = np.asarray(size_pages)
    duration_us = np.asarray(duration_s, dtype=np.float64) * 1e6
    full = (size_pages % unit_pages == 0) & np.isfinite(duration_us)
    if np.count_nonzero(full) == 0:
        return AllocationResult(None, UNDETERMINED, "no request of a whole number of I/O units was measured")
    s = summarize_sizes(size_pages[full] // unit_pages, duration_us[full])
    units = s.size_pages.astype(np.int64)
    se = np.hypot(s.stderr, MODEL_FLOOR_US)
    w = 1.0 / se**2
    y = s.median
    n_free = len(timing.free()) + 1
    base = dict(sizes_pages=units * unit_pages, measured_us=y, measured_se_us=se)
    walks = enumerate_walks(channels, ways, k, int(units.max()) * k, dies_per_package)
    fits = _candidates(walks, _fit_walks(walks, units, k, dies_per_package, page_size_bytes, timing, y, w), y)
    visits = {tuple(names): (ch, pkg, dies_per_package, k) for _, names, ch, pkg in walks}
    dof = units.size - n_free
    if dies_per_package > 1 and k > 1 and dof >= 1 and fits[0].chi2 / dof > MISFIT:
        # 003's visits carry all of a package's pages at once (package-major).  Where no such
        # walk explains the durations, the controller may deal the pages one die at a time
        # instead: those walks join as rivals (only then — their extra freedom lets a
        # wrong-scheme die-major walk imitate a package-major drive's program-time spread)
        dm = die_major_walks(walks, k, dies_per_package, int(units.max()))
        fits = sorted(fits + _candidates(dm, _fit_walks(dm, units, k * dies_per_package, 1, page_size_bytes,
                                                         timing, y, w), y), key=lambda f: f.chi2)
        visits.update({tuple(names): (ch, pkg, 1, k * dies_per_package) for _, names, ch, pkg in dm})
    best = fits[0]
    labels = {f.scheme for f in fits}
    if len(labels) == 1:
        if ways == 1 and best.scheme == "way-priority":
            why = (f"one package per channel, and each I/O unit fills the {dies_per_package} dies of one package "
                   "(they share its channel) before the next channel: way priority in 003's terms (§5.2, Q Pro)")
        elif ways == 1:
            why = f"one package per channel: every walk is {best.scheme}"
        else:
            why = f"every possible walk is {best.scheme} for {k} package(s) per unit"
        return AllocationResult(best.scheme, HIGH, why, candidates=tuple(fits), margin=None, **base)
    if dof < 1:
        return AllocationResult(
            None, UNDETERMINED,
            f"{units.size} full-unit request sizes for {n_free} fitted parameters: sweep further (more multiples of the unit) or give the timing",
            candidates=tuple(fits), **base,
        )
    reduced = best.chi2 / dof
    ruled, ruled_why = _ruled_out(fits, max(1.0, reduced))
    if reduced > MISFIT:
        misfit = (f"no allocation explains the durations (best reduced χ² {reduced:.0f}, residual "
                  f"{best.rms_residual_us:.0f} µs)")
        refit = None
        if timing.t_prog_us is not None and refit_program_time:
            again = dict(channels=channels, packages=packages, dies_per_package=dies_per_package,
                         unit_pages=unit_pages, page_size_bytes=page_size_bytes, refit_program_time=False)
            free = infer_allocation(size_pages, duration_s, timing=replace(timing, t_prog_us=None), **again)
            refit = program_time_refit(free, timing.t_prog_us, misfit)
            spare = free.measured_us.size - len(replace(timing, t_prog_us=None).free()) - 1
            if (refit is not None and refit.scheme is None and spare >= 1
                    and free.candidates[0].chi2 / spare <= MISFIT):
                # the full units tie at the fitted program time too (a time the sizes pin down:
                # one to spare, and explained); the sub-unit sizes' read-out, counted in the
                # given transfer time, may still tell (only it: a full-unit decision at a
                # fitted time held fixed would skip the sizes to spare)
                t_fit = free.candidates[0].params_us["t_prog_us"]
                held = infer_allocation(size_pages, duration_s, **again, timing=replace(timing, t_prog_us=t_fit))
                if held.by_subunit:
                    return replace(held, reason=(
                        f"{misfit} with tPROG {timing.t_prog_us:.0f} µs (typical); held at the critical path's "
                        f"program time the durations fit ({t_fit:.0f} µs, {t_fit / timing.t_prog_us:.2f}×): "
                        f"{held.reason}"))
        if refit is not None and refit.scheme is not None:
            return refit
        return AllocationResult(
            None, UNDETERMINED,
            misfit + (refit.reason if refit is not None else
                      ": is the write cache off and the drive idle between requests?")
            + (f" ({ruled_why})" if ruled else ""),
            candidates=tuple(fits), ruled_out=ruled, ruled_out_reason=ruled_why, **base,
        )
    base.update(ruled_out=ruled, ruled_out_reason=ruled_why)
    rival = next(f for f in fits if f.scheme != best.scheme)
    margin = (rival.chi2 - best.chi2) / max(1.0, reduced)
    why = (
        f"{best.scheme} ({', '.join(best.layouts[:2])}) fits {units.size} full-unit sizes with {best.rms_residual_us:.0f} µs rms; "
        f"best {rival.scheme} walk is worse by Δχ² = {margin:.0f} ({rival.rms_residual_us:.0f} µs rms)"
    )
    # Beyond the statistics, the best walk must also explain the durations materially better:
    # what no walk models (lower and upper pages programming at different speeds) can make
    # two nearly equal misfits differ by many χ².
    clearly_better = rival.rms_residual_us >= MIN_RMS_RATIO * best.rms_residual_us
    stretched = _stretched(timing, dof)
    if stretched and margin >= SUGGESTIVE and clearly_better:
        return AllocationResult(None, UNDETERMINED, f"{why} — not decisive: {stretched}"
                                + (f"; {ruled_why}" if ruled else ""), candidates=tuple(fits), margin=margin, **base)
    if margin >= DECISIVE and clearly_better:
        return AllocationResult(best.scheme, HIGH, why, candidates=tuple(fits), margin=margin, **base)
    if margin >= SUGGESTIVE and clearly_better:
        return AllocationResult(best.scheme, MEDIUM, why, candidates=tuple(fits), margin=margin, **base)
    by_sub, sub_why = _subunit_view(fits, visits, k, packages, Durations(units * unit_pages, y, w), size_pages, duration_us,
                                    unit_pages, page_size_bytes, timing, dof)
    if by_sub is not None:
        return AllocationResult(by_sub, MEDIUM, f"{why}; the full-unit sizes do not decide, {sub_why}",
                                candidates=tuple(fits), margin=margin, by_subunit=True, **base)
    return AllocationResult(
        None, UNDETERMINED,
        why + (" — not decisive: the walks imitate each other at some switch delay; the rise of a one-unit "
               "write may tell them apart" if timing.t_xfer_page_us is not None and timing.t_prog_us is not None else
               " — not decisive: give the transfer and program times (datasheet), or add sizes and repeats")
        + (f"; {ruled_why}" if ruled else ""),
        candidates=tuple(fits), margin=margin, **base,
    )


__all__ = ["Timing", "CandidateFit", "AllocationResult", "enumerate_walks", "die_major_walks", "infer_allocation",
           "one_way_note", "one_way_scheme", "CHANNEL_ONLY"]
