"""Packages per I/O unit, and how they share channels, from the rise of one-unit writes.

003 reads dies and the allocation off totals: the staircase's top (Eq. 1) and
request durations.  The time course of one write holds more: each package of the
unit starts programming at its own moment — a channel-switch delay after the
previous one when they hang on different channels, a whole page transfer later
when they share one — and each start is a step up of one package's program
current that stays for a program time (003 §4.1, §4.2).  So the mean current of
the writes of exactly one unit, as a function of time from the request, is a
set of steps whose number is the packages per unit and whose spacing is the walk.

Every hypothesis (packages per unit, and the channel each of them hangs on)
predicts that time course through the latency recurrence of 003 §4.2 with the
given page-transfer and program times; the switch delay and the start are
fitted on a grid.  Amplitudes enter linearly (the controller's busy current,
the channel transfer current, one program current per package, since packages
differ, and where the host rate is given the host link's DMA current while the unit's
pages come in), so each hypothesis is a least-squares fit.  Before fitting, data and
model alike are averaged over 22 µs, about one ISPP period (003's drives and
ONFI parts pulse every 15–30 µs), which takes the sawtooth out without moving
any step.  A hypothesis wins when its score (BIC on the number of independent
22 µs stretches) beats every hypothesis with another package count, and its
own amplitudes look like packages: every program step clearly positive and
none far from the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from charz.analysis._allocation import enumerate_walks
from charz.analysis._smooth import moving_average
from charz.analysis._quantity import HIGH, MEDIUM, UNDETERMINED
from charz.analysis._rise_kernel import bounded_fits, grid_best_fits, grid_columns, normal_equations, unit_starts

SMOOTH_US = 22.0  # one ISPP period: the sawtooth averages out, steps only widen
GRID_US = 6.0  # the fitted curve is compared every 6 µs, a quarter of the averaging
PROG_SPREAD = 0.2  # a package's program ends within ±20 % of tPROG (lower/upper pages, die spread)
DECISIVE = 16.0  # BIC margin for a confident answer
SUGGESTIVE = 9.0
MIN_STEP_Z = 2.0  # a program step must stand this many standard errors above zero
MAX_DIES = 8
SAME_START_US = SMOOTH_US / 2  # program starts closer than this are the same starts to the fit
MAX_SELECT_US = 62.0  # the longest package-selection delay the fits try (a controller's, not a datasheet's)
DURATION_SLACK = 0.3  # tPROG as given against as the drive runs it (lower/upper pages, temperature)
# ... and the other way: the write may end later than the hypothesis' last program, by an
# upper page's excess — MLC/TLC datasheets give lower pages ~0.6× and upper pages up to ~1.5×
# the typical tPROG, and the last program of a unit is as often an upper page as not
UPPER_PAGE_SLACK = 0.6
# The shortest program a page can take (MLC/TLC lower pages ~0.6× the typical tPROG): before
# the onset, the first page's time from the host and over its channel, and this, no package
# can have stopped programming, so the current there is starts alone — no fall, whose time a
# multi-die package's upper pages make unknowable
LOWER_PAGE = 0.6
# The durations' cadence (each unit's added time where units do not wait for a busy package)
# is one unit's dispatch; the recurrence leaves out each page's command and address cycles
# (ONFI: 0.5–5 µs a page) and the switch to the next unit's first package (at most
# MAX_SELECT_US), and the cadence is a median of band medians: CADENCE_SLACK of it either way
CMD_US = 5.0
CADENCE_SLACK = 0.1


@dataclass(frozen=True)
class RiseHypothesis:
    packages_per_unit: int
    dies_per_package: int
    channels_of_unit: tuple[int, ...]  # the channel of each package of the unit, in walk order
    schemes: tuple[str, ...]  # 003's names of the walks that give this unit
    t_switch_us: float
    t_first_us: float  # host data starts to flow, from the request
    t_busy_us: float  # the controller's busy current starts
    program_starts_us: tuple[float, ...]
    amplitudes_a: tuple[float, ...]  # busy, transfer, program, then the host link's (where its rate is given)
    score: float
    plausible: bool
    why_not: str = ""
    lead: int = 0  # how pages are dealt (dies: package-major; 1: die-major; -1: page-gated); 0 = dies


@dataclass(frozen=True)
class RiseResult:
    packages_per_unit: int | None
    scheme: str | None
    confidence: str
    scheme_confidence: str
    reason: str
    scheme_reason: str
    t_us: np.ndarray = field(default_factory=lambda: np.empty(0))
    mean_a: np.ndarray = field(default_factory=lambda: np.empty(0))
    fitted_a: np.ndarray = field(default_factory=lambda: np.empty(0))
    hypotheses: tuple[RiseHypothesis, ...] = ()
    # the best plausible count where the only reason for no answer is a close rival (ahead of
    # every other count, plausible or not, but by less than SUGGESTIVE; no start hidden under
    # the host link's end): what the rise leans to, not an answer (used by _timing's spread check)
    leaning: int | None = None


def _ramp_up(t: np.ndarray, at: float, width: float) -> np.ndarray:
    """A step at ``at`` as seen through a ``width`` moving average."""
    return np.clip((t - at) / width + 0.5, 0.0, 1.0)


PAGE_GATED = -1  # ``lead`` of a controller that sends each page as it arrives from the host


def _starts(channels_of_unit, dies, t0, s, t_xfer, host_page_us, lead=None):
    """003 §4.2's recurrence for one unit: page transfer starts (P × dies) and the program
    start of each package (:func:`_starts_batch` for one grid point)."""
    prog, xs = _starts_batch(channels_of_unit, dies, np.array([float(t0)]), float(s), t_xfer, host_page_us, lead)
    return xs[0], prog[0]


def dispatch_fits(xs, t_xfer: float, t_first, host_page_us: float, cadence_us: float, lead: int) -> np.ndarray:
    """Whether a unit dispatched as the recurrence has it (page transfer starts ``xs``,
    ... × P × dies; the host data from ``t_first``) fits the durations' cadence: the time
    each unit added to the request where no unit waited for a busy package.

    Then nothing but dispatch spaces the units (each lands on idle packages), so the cadence
    is one unit's dispatch: the next unit's first page goes out after this unit's last
    package was selected (after its last page, where pages are dealt die by die, each
    selecting a package), and no later than its pages are over their channels and in from
    the host, plus a switch (:data:`MAX_SELECT_US`) and each page's command cycles
    (:data:`CMD_US`), ±:data:`CADENCE_SLACK`.  A count and transfer time that put the
    dispatch far from the cadence are not this drive's (datasheet dev 489: 16 pages on one
    channel added 1946 µs a unit — 121 µs a page, not the 76 µs at which 4 packages fitted).

    >>> xs = np.array([[[0.0, 50.0], [100.0, 150.0]]])       # 2 packages × 2 pages, 50 µs each
    >>> first = np.array([-10.0])
    >>> dispatch_fits(xs, 50.0, first, 0.0, 230.0, 2), dispatch_fits(xs, 50.0, first, 0.0, 500.0, 2)
    (array([ True]), array([False]))
    """
    xs = np.asarray(xs, dtype=np.float64)
    first = xs.min(axis=(-2, -1))
    last_select = xs.max(axis=(-2, -1)) if lead == 1 else xs[..., :, 0].max(axis=-1)
    pages = xs.shape[-2] * xs.shape[-1]
    done = np.maximum(xs.max(axis=(-2, -1)) + t_xfer, np.asarray(t_first, dtype=np.float64) + pages * host_page_us)
    lo, hi = last_select - first, done - first + MAX_SELECT_US + pages * CMD_US
    return (lo <= cadence_us * (1 + CADENCE_SLACK)) & (hi >= cadence_us * (1 - CADENCE_SLACK))


def keeps_cadence(h: RiseHypothesis, t_xfer: float, host_page_us: float, cadence_us: float) -> bool:
    """:func:`dispatch_fits` for one fitted hypothesis at the transfer time it was fitted with."""
    xs, _ = _starts(h.channels_of_unit, h.dies_per_package, h.t_first_us, h.t_switch_us, t_xfer, host_page_us,
                    h.lead or None)
    return bool(dispatch_fits(np.asarray(xs)[None], t_xfer, np.array([h.t_first_us]), host_page_us, cadence_us,
                              h.lead or h.dies_per_package)[0])


def _busy(data: "_RiseData", t_busy: float) -> np.ndarray:
    # The controller is busy from its start to each repeat's own end (``data.busy_end``: the
    # same for every hypothesis, drawn once).
    return _ramp_up(data.t, t_busy, data.width) - data.busy_end


def _design(t, busy, xs, prog, dies, t_xfer, t_prog, width, t_first=0.0, host_page_us=0.0):
    """Columns: busy, transfers, programs — one program current for every package, since
    packages differ by ±15 %, not by kind (a current per package lets a wrong count fit ripple)
    — and, where the host rate is given, the host link's (:func:`_host_columns`)."""
    xs = np.asarray(xs, dtype=np.float64)
    xf, on = _columns_batch(t, np.asarray(prog, dtype=np.float64)[None], xs[None], t_xfer, t_prog, width, np.float64)
    cols = [busy, xf[0], on[0]]
    if host_page_us > 0:
        cols.append(_host_columns(t, np.array([float(t_first)]), xs.size, host_page_us, width)[0])
    return np.column_stack(cols)


def _host_columns(t, t_first, unit_pages, host_page_us, width):
    """The host link's current (K × T for K first starts): DMA draws it while the unit's data
    comes in from the host, from ``t_first`` until its last page has crossed the link at the
    given rate.  Without it a slow link's current, on under the first package's program,
    reads as a second package starting a few µs later (dev seeds 125, 206: one package of 4
    dies seen as 2 packages 15 µs apart)."""
    t_first = np.asarray(t_first, dtype=np.float64)[:, None]
    col = _ramps(t, t_first, width)[:, :, 0]
    col -= _ramps(t, t_first + unit_pages * host_page_us, width)[:, :, 0]
    return col


def _can_start_alike(rival: RiseHypothesis, best: RiseHypothesis, t_xfer: float, host_page_us: float) -> bool:
    """Could the rival's channel pattern, with some switch delay its own dispatch allows,
    start its packages where the best hypothesis did (each within :data:`SAME_START_US`)?

    The delays are those the rival's fit may take (:func:`_grid_search`): a selection delay
    of up to :data:`MAX_SELECT_US`, and for a controller that sends a package's pages in a
    row, also (dies − 1) page transfers more.  A die-major controller switches package at
    every page, so its packages start a selection delay apart or wait for the shared
    channel; letting it wait hundreds of µs between packages made a shared channel "alike"
    to separate channels it can never imitate (dev seed 121: starts 259 µs apart, 4 pages
    of 81 µs on one channel need 324)."""
    want = np.asarray(best.program_starts_us)
    lead = rival.lead or rival.dies_per_package
    sel = np.arange(0.0, MAX_SELECT_US + 1.0, 1.0)
    serial = ((rival.dies_per_package if lead == PAGE_GATED else lead) - 1) * t_xfer
    s = np.unique(np.r_[sel, serial + sel])  # every delay at once
    prog, _ = _starts_batch(rival.channels_of_unit, rival.dies_per_package, np.full(s.size, best.t_first_us), s,
                            t_xfer, host_page_us, rival.lead or None)
    return bool(np.any(np.max(np.abs(prog - want), axis=1) < SAME_START_US))


def _fit(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least squares of (busy, transfer, program[, host link]) under what currents can be:
    none negative, and a channel moving data draws no more than a program (003 §4.1: programs
    make the peaks).  A violated bound is active at the optimum, so the fit is redone on each
    face of the bounds (:data:`_FACES`) and the best that keeps them wins."""
    faces = _FACES[X.shape[1]]

    def on_face(face):
        E = _face_matrix(face, X.shape[1])
        c, *_ = np.linalg.lstsq(X @ E, y, rcond=None)
        full = E @ c
        return full, float(np.sum((y - X @ full) ** 2))

    coef, r0 = on_face(faces[0])
    if _feasible(coef, 0.0):
        return coef, r0
    best: tuple[np.ndarray, float] | None = None
    for face in faces[1:]:
        full, rss = on_face(face)
        if _feasible(full, 1e-12) and (best is None or rss < best[1]):
            best = (full, rss)
    return best if best is not None else (coef, r0)


def _feasible(c: np.ndarray, tol: float):
    """busy ≥ 0, 0 ≤ transfer ≤ program (+ tol), a host-link current ≥ 0 (over the last axis)."""
    c = np.asarray(c)
    return (c[..., 0] >= 0) & (c[..., 1] >= 0) & (c[..., 1] <= c[..., 2] + tol) & np.all(c[..., 3:] >= 0, axis=-1)


def _starts_batch(channels_of_unit, dies, t0, s, t_xfer, host_page_us, lead=None):
    """The recurrence for arrays of first starts ``t0`` and switch delays ``s`` (same shape K):
    program starts (K × P) and page transfer starts (K × P × dies), every grid point in one
    compiled loop over the unit's packages (≤ 16).

    ``lead`` says how the controller deals pages:

    * ``dies`` (the default; 003's T_reg = dies × t_xfer): a package gets all its pages in a
      row, once they are all in from the host;
    * ``1`` (die-major): one page to each package in turn, round after round — page q to
      package q mod P, die q div P, each after its host page, its channel and the switch
      delay since the previous page; a package programs from its first page's end;
    * :data:`PAGE_GATED`: a package's pages in a row, each sent as it arrives from the host
      (a slow host link spreads them, and the package's last die starts late).
    """
    lead = dies if lead is None else lead
    t0 = np.asarray(t0, dtype=np.float64)
    s = np.broadcast_to(np.asarray(s, dtype=np.float64), t0.shape)
    # compiled (``_rise_kernel.unit_starts``: the same float64 operations as the numpy passes
    # over the grid it replaced, which were a tenth of the rise's time)
    prog, xs = unit_starts(np.asarray(channels_of_unit, dtype=np.int64), int(dies), np.ascontiguousarray(t0.ravel()),
                           np.ascontiguousarray(s.ravel()), float(t_xfer), float(host_page_us), int(lead), PAGE_GATED)
    P = len(channels_of_unit)
    return prog.reshape(t0.shape + (P,)), xs.reshape(t0.shape + (P, dies))


def _ramps(t: np.ndarray, at: np.ndarray, width: float, dtype=np.float64) -> np.ndarray:
    """:func:`_ramp_up` of every step in ``at`` (K × P) on ``t``: K × T × P, clipped in place.
    Times are taken relative to ``t[0]`` so that float32 (the grid's columns) keeps them to
    a thousandth of a µs."""
    t0 = float(t[0]) if t.size else 0.0
    r = (t - t0).astype(dtype)[None, :, None] - (at - t0).astype(dtype)[:, None, :]
    r *= dtype(1.0 / width)
    r += dtype(0.5)
    np.maximum(r, 0.0, out=r)
    return np.minimum(r, 1.0, out=r)


def _columns_batch(t, prog, xs, t_xfer, t_prog, width, f=np.float32, contiguous=None):
    """Transfer and program columns (K × T each) of :func:`_design` for K sets of program
    starts (K × P) and page transfer starts (K × P × dies).  float32 on the grid: it only
    ranks fits; the chosen point is refitted in float64.  The grid's float32 columns are
    drawn by a compiled loop (``_rise_kernel``), bit for bit those of :func:`_columns_numpy`."""
    dies = xs.shape[-1]
    if contiguous is None:
        contiguous = dies == 1 or bool(np.allclose(np.diff(xs, axis=-1), t_xfer))
    if f is np.float32:
        return grid_columns(t, prog, xs, t_xfer, t_prog, width, 2 * PROG_SPREAD * t_prog, contiguous)
    return _columns_numpy(t, prog, xs, t_xfer, t_prog, width, f, contiguous)


def _columns_numpy(t, prog, xs, t_xfer, t_prog, width, f, contiguous):
    """:func:`_columns_batch` as whole-array passes (K × T × P ramps)."""
    dies = xs.shape[-1]
    if contiguous:
        # a package's pages back to back: one window from its first transfer to its last
        xf = _ramps(t, xs[..., 0], width, f)
        xf -= _ramps(t, xs[..., 0] + dies * t_xfer, width, f)
    else:
        flat = xs.reshape(xs.shape[0], -1)
        xf = _ramps(t, flat, width, f)
        xf -= _ramps(t, flat + t_xfer, width, f)
    # the package's last die ends within ±spread of its program time: a fall centred on that end
    fall = _ramps(t, xs[..., -1] + t_xfer + t_prog, 2 * PROG_SPREAD * t_prog, f)
    on = _ramps(t, prog, width, f)
    np.subtract(1.0, fall, out=fall)
    on *= fall
    return xf.sum(axis=2, dtype=np.float64), on.sum(axis=2, dtype=np.float64)


def _solve(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Batched ``M x = v`` (K × n × n, n ≤ 3) by cofactors — LAPACK's batched solve and det
    cost more in call overhead than these few products; a singular system (a column of
    zeros) gets the least-norm answer, as lstsq does."""
    n = M.shape[1]
    scale = np.maximum(1.0, np.abs(M).max(axis=(1, 2))) ** n
    if n == 1:
        det = M[:, 0, 0]
        adj = np.ones_like(M)
    elif n == 2:
        a, b, c, d = M[:, 0, 0], M[:, 0, 1], M[:, 1, 0], M[:, 1, 1]
        det = a * d - b * c
        adj = np.stack([np.stack([d, -b], axis=1), np.stack([-c, a], axis=1)], axis=1)
    elif n == 4:
        det = np.linalg.det(M)
        ok = np.abs(det) > 1e-12 * scale
        out = np.zeros(v.shape)
        if ok.any():
            out[ok] = np.linalg.solve(M[ok], v[ok][..., None])[..., 0]
        if not ok.all():
            out[~ok] = (np.linalg.pinv(M[~ok]) @ v[~ok][..., None])[..., 0]
        return out
    else:
        m = M
        c00 = m[:, 1, 1] * m[:, 2, 2] - m[:, 1, 2] * m[:, 2, 1]
        c01 = m[:, 1, 2] * m[:, 2, 0] - m[:, 1, 0] * m[:, 2, 2]
        c02 = m[:, 1, 0] * m[:, 2, 1] - m[:, 1, 1] * m[:, 2, 0]
        det = m[:, 0, 0] * c00 + m[:, 0, 1] * c01 + m[:, 0, 2] * c02
        adj = np.empty_like(M)
        adj[:, 0, 0], adj[:, 1, 0], adj[:, 2, 0] = c00, c01, c02
        adj[:, 0, 1] = m[:, 0, 2] * m[:, 2, 1] - m[:, 0, 1] * m[:, 2, 2]
        adj[:, 0, 2] = m[:, 0, 1] * m[:, 1, 2] - m[:, 0, 2] * m[:, 1, 1]
        adj[:, 1, 1] = m[:, 0, 0] * m[:, 2, 2] - m[:, 0, 2] * m[:, 2, 0]
        adj[:, 1, 2] = m[:, 0, 2] * m[:, 1, 0] - m[:, 0, 0] * m[:, 1, 2]
        adj[:, 2, 1] = m[:, 0, 1] * m[:, 2, 0] - m[:, 0, 0] * m[:, 2, 1]
        adj[:, 2, 2] = m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] * m[:, 1, 0]
    ok = np.abs(det) > 1e-12 * scale
    out = np.matmul(adj, v[..., None])[..., 0] / np.where(ok, det, 1.0)[:, None]
    if not ok.all():
        out[~ok] = (np.linalg.pinv(M[~ok]) @ v[~ok][..., None])[..., 0]
    return out


# The faces of the bounds on the amplitudes, each as where every amplitude goes: free
# variable k, or 0 where < 0 (two amplitudes on one variable are tied equal).  The first is
# the unconstrained fit; the others are where a bound binds: no transfer current, transfer
# as large as a program's, no busy current, programs alone, transfer and program alike —
# and with a host-link column, each of these with that current free and with none.
_FACES3 = np.array([[0, 1, 2], [0, -1, 1], [0, 1, 1], [-1, 0, 1], [-1, -1, 0], [-1, 0, 0]], dtype=np.int64)
_FACES = {3: _FACES3, 4: np.array([list(f) + [f.max() + 1] for f in _FACES3] + [list(f) + [-1] for f in _FACES3],
                                  dtype=np.int64)}


def _face_matrix(face, n: int) -> np.ndarray:
    """E (n × m) with amplitudes = E @ the face's free variables."""
    E = np.zeros((n, int(max(face)) + 1))
    for i, k in enumerate(face):
        if k >= 0:
            E[i, k] = 1.0
    return E


def _fit_batch(G: np.ndarray, b: np.ndarray, yy: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fit` for K designs at once from their normal equations (Gram matrices G, K × 3 × 3,
    and b = Xᵀy, K × 3; yy = yᵀy): amplitudes (K × 3) and residual sums of squares (K).  The same
    bounds, the same fall-back subsets, each a smaller set of normal equations.

    A grid's points are solved by a compiled loop (``_rise_kernel``: the same rules; its sums
    round differently from numpy's by a few units in the last place), a singular system by
    numpy's least-norm solve.  The refit of each hypothesis goes through the same loop: in
    numpy its twelve faces (host column) were a quarter of the rise's time."""
    coef, r = bounded_fits(G, b, yy, _FACES[G.shape[1]])
    bad = np.isnan(r)
    if bad.any():
        coef[bad], r[bad] = _fit_batch_numpy(G[bad], b[bad], yy)
    return coef, r


def _grid_rss(G: np.ndarray, b: np.ndarray, yy: float) -> np.ndarray:
    """The residuals of :func:`_fit_batch` where one can be the grid's least, +inf
    elsewhere (the grid wants only its least; ``_rise_kernel.grid_best_fits``
    skips the points a bound rules out — a bounded fit is never better than the
    unconstrained one — so the least and where it lies are :func:`_fit_batch`'s).  The
    allowance for rounding, a millionth of yᵀy, is far above the sums' few units in the
    last place and far below any two fits the grid must tell apart."""
    r = grid_best_fits(G, b, yy, _FACES[G.shape[1]], 1e-6 * yy)
    bad = np.isnan(r)
    if bad.any():
        r[bad] = _fit_batch_numpy(G[bad], b[bad], yy)[1]
    return r


def _fit_batch_numpy(G: np.ndarray, b: np.ndarray, yy: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fit_batch` as batched numpy passes."""

    if G.shape[1] == 4:
        # A host column in the span of the others (it starts with the busy current and
        # outlasts the stretch: the same column) adds nothing: those points are fitted
        # without it, their host current none.
        scale = np.maximum(1.0, np.abs(G).max(axis=(1, 2))) ** 4
        lone = ~(np.abs(np.linalg.det(G)) > 1e-12 * scale)
        if lone.any():
            coef = np.zeros(b.shape)
            r = np.empty(G.shape[0])
            coef[lone, :3], r[lone] = _fit_batch_numpy(G[lone][:, :3, :3], b[lone][:, :3], yy)
            if (~lone).any():
                coef[~lone], r[~lone] = _fit_batch_numpy(G[~lone], b[~lone], yy)
            return coef, r

    def rss(c):
        return np.maximum(yy - 2 * np.einsum("ki,ki->k", c, b) + np.einsum("ki,ki->k", c, np.matmul(G, c[:, :, None])[:, :, 0]), 0.0)

    coef = _solve(G, b)
    best_c, best_r = coef.copy(), rss(coef)
    feasible = _feasible(coef, 0.0)
    if feasible.all():
        return best_c, best_r
    found = feasible.copy()
    todo = ~feasible
    Gt, bt = G[todo], b[todo]
    for face in _FACES[G.shape[1]][1:]:
        E = _face_matrix(face, G.shape[1])
        # Eᵀ G E by matmul: a three-operand einsum runs its naive loop, 5× slower here
        c = _solve(np.matmul(np.matmul(E.T, Gt), E), bt @ E) @ E.T
        ok = _feasible(c, 1e-12)
        r = np.maximum(yy - 2 * np.einsum("ki,ki->k", c, bt) + np.einsum("ki,ki->k", c, np.matmul(Gt, c[:, :, None])[:, :, 0]), 0.0)
        idx = np.flatnonzero(todo)
        take = ok & (~found[idx] | (r < best_r[idx]))
        best_c[idx[take]], best_r[idx[take]] = c[take], r[take]
        found[idx[take]] = True
    return best_c, best_r


def _normal_equations(busy_of: np.ndarray, xf: np.ndarray, on: np.ndarray, host: np.ndarray, y: np.ndarray,
                      which_busy: np.ndarray, which_starts: np.ndarray,
                      host_of_starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gram matrices and Xᵀy of every grid point, from the products of the distinct busy
    columns (one per busy start), the distinct transfer/program columns (one per set of
    program starts) and the distinct host-link columns (one per first start; none where no
    host rate is given): the K designs are never formed."""
    return normal_equations(busy_of, xf, on, host, y, which_busy, which_starts, host_of_starts)  # compiled


def _inverse_diagonal(G: np.ndarray) -> np.ndarray:
    """Diagonal of the inverse of a symmetric 3 × 3 (or 4 × 4) matrix by its cofactors (inf
    where singular); LAPACK's inv costs milliseconds here on a busy machine, the closed form
    microseconds."""
    if G.shape[0] == 4:
        minors = [np.delete(np.delete(G, i, 0), i, 1) for i in range(4)]
        cof = np.array([_det3(m) for m in minors])
        det = float(G[0] @ _cofactor_row0(G))
        if not abs(det) > 1e-12 * max(1.0, float(np.abs(G).max())) ** 4:
            return np.full(4, np.inf)
        return cof / det
    (a, b, c), (_, d, e), (_, _, f) = G
    cof = np.array([d * f - e * e, a * f - c * c, a * d - b * b])
    det = a * cof[0] - b * (b * f - c * e) + c * (b * e - c * d)
    if not abs(det) > 1e-12 * max(1.0, float(np.abs(G).max())) ** 3:
        return np.full(3, np.inf)
    return cof / det


def _det3(m: np.ndarray) -> float:
    return float(m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]) - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
                 + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))


def _cofactor_row0(G: np.ndarray) -> np.ndarray:
    """The cofactors of a 4 × 4 matrix's first row (its determinant is that row against them)."""
    return np.array([(-1) ** j * _det3(np.delete(G[1:], j, 1)) for j in range(4)])


def _patterns(channels: int, packages: int, ppu: int, dies: int):
    """Distinct channel patterns of a unit's packages (channels relabelled by first use)."""
    ways = packages // channels
    out: dict[tuple[int, ...], set[str]] = {}
    for scheme, _names, ch, _pkg in enumerate_walks(channels, ways, ppu, ppu, dies):
        relabel: dict[int, int] = {}
        key = tuple(relabel.setdefault(int(c), len(relabel)) for c in ch[:ppu])
        out.setdefault(key, set()).add(scheme)
    return out


@dataclass(frozen=True)
class _RiseData:
    """The mean one-unit write, averaged over an ISPP period, on the grid the fits compare."""

    t: np.ndarray  # µs from the request, every GRID_US
    y: np.ndarray  # A above idle
    width: float  # the averaging, µs
    onset: float  # where the mean first leaves the idle level, µs
    end: float  # the median end of the repeats, µs
    ends_us: np.ndarray  # each repeat's end, µs
    n_eff: float  # independent stretches of one averaging width
    host_page_us: float  # a page over the host link (0 = not given)
    busy_off: np.ndarray  # the mean's fall as the repeats end, on ``t``
    busy_end: np.ndarray  # the same, as :func:`_busy` draws it


def unit_rise(
    waves_a: np.ndarray,
    t_s: np.ndarray,
    end_s: np.ndarray,
    *,
    unit_pages: int,
    page_size_bytes: int,
    channels: int,
    packages: int,
    t_xfer_page_us: float,
    t_prog_us: float,
    host_rate_bytes_per_s: float | None = None,
    noise_a: float = 0.0,
    starts_first: bool = True,
    stretch_prog_us: float | None = None,
) -> RiseResult:
    """Packages per unit (and the unit's channel pattern) from writes of exactly one unit.

    ``waves_a`` (R × N) are the repeats' currents above their idle level, on the common
    time axis ``t_s`` (from the request); ``end_s`` their measured ends.  ``starts_first``:
    count on the stretch before any program can end first, and read through the programs'
    ends only where that stretch does not decide (measured timing compares fits on one
    stretch, so it turns this off).  ``stretch_prog_us``: the tPROG whose stretch the fits
    compare (default ``t_prog_us``), so that scores at two tPROGs compare.

    Example
    -------
    Two packages on two channels, 30 µs apart, drawn by hand:

    >>> t = np.arange(-100e-6, 1500e-6, 2e-6); tu = t * 1e6
    >>> w = 0.05 * (tu > 20) * (tu < 1100) + 0.04 * ((tu > 100) & (tu < 1000)) + 0.045 * ((tu > 130) & (tu < 1030))
    >>> r = unit_rise(np.tile(w, (3, 1)), t, np.full(3, 1100e-6), unit_pages=2, page_size_bytes=8192,
    ...               channels=2, packages=4, t_xfer_page_us=50.0, t_prog_us=900.0)
    >>> r.packages_per_unit, r.confidence
    (2, 'high')
    """
    def rise(before_falls: float | None) -> RiseResult:
        # the stretch the fits compare ends where programs may start to end: tPROG sets it,
        # unless the caller holds it to another tPROG's to compare scores across tPROGs
        data = _rise_data(waves_a, t_s, end_s, t_prog_us=stretch_prog_us or t_prog_us,
                          page_size_bytes=page_size_bytes, host_rate_bytes_per_s=host_rate_bytes_per_s,
                          noise_a=noise_a, before_falls=before_falls)
        return _rise_on(data, unit_pages, channels, packages, t_xfer_page_us, t_prog_us)

    if starts_first:
        r = rise(t_xfer_page_us)
        if r.packages_per_unit is not None:
            return replace(r, reason=r.reason + f" (read before any program can end: up to the first page's host "
                                                f"and channel time and {LOWER_PAGE:g} tPROG past the onset)")
    r = rise(None)
    if starts_first and r.packages_per_unit is not None:
        host_page_us = host_page_time_us(page_size_bytes, host_rate_bytes_per_s)
        twin = (_die_rounds_after_ends(r, t_xfer_page_us, t_prog_us, host_page_us)
                or _fewer_packages_dealt_die_by_die(r, t_xfer_page_us, t_prog_us, host_page_us)
                or _staggered_larger_count(r, t_xfer_page_us, t_prog_us, host_page_us))
        if twin:
            return replace(r, packages_per_unit=None, scheme=None, confidence=UNDETERMINED,
                           scheme_confidence=UNDETERMINED, reason=r.reason + f" — but {twin}")
        r = replace(r, reason=r.reason + " (read through the programs' ends; before any could end, the rise is not "
                                         "decisive)")
    return r


def _die_rounds_after_ends(r: RiseResult, t_xfer_page_us: float, t_prog_us: float, host_page_us: float) -> str:
    """Why a die-major count read through the programs' ends cannot be told from one
    package a page, or "" where it can.

    P packages of d dies dealt die-major (one page to each package in turn, round after
    round) whose next die starts to program no earlier than one averaging width
    (:data:`SMOOTH_US`) before the package's last program ends: a package's current is one
    pump's, not more with two dies busy (datasheet ICC2), so each package stays on (or goes
    on again) as its last program ends — the current of P · d one-die packages, each started
    as an earlier one ends (or after).  Both draw the same current through the average;
    only the rise before any program could end (which did not decide) tells them apart
    (datasheet seed 393 at ×2: 8 packages × 2 dies, starts 56 µs apart, 448 µs a round
    against tPROG 447 µs, for 16 × 1).  Where the next die starts a good deal earlier (seed
    338: 436 µs against 480), P · d one-die packages would add a package for that long,
    and the fit sees it."""
    best = min((h for h in r.hypotheses if h.plausible and h.packages_per_unit == r.packages_per_unit),
               key=lambda h: h.score, default=None)
    if best is None or not _rounds_after_ends(best, t_xfer_page_us, t_prog_us, host_page_us):
        return ""
    n, d = best.packages_per_unit, best.dies_per_package
    return (f"{n} packages of {d} dies dealt die by die start each next die's program no earlier than "
            f"an averaging width ({SMOOTH_US:g} µs) before its last one ends, which draws the current of "
            f"{n * d} one-die packages started as earlier ones end: the rise cannot tell them apart")


def _rounds_after_ends(h: RiseHypothesis, t_xfer_page_us: float, t_prog_us: float, host_page_us: float) -> bool:
    """Whether ``h`` (die-major, several dies) starts each next die's program no earlier than
    an averaging width before the package's last one ends, under the given timing."""
    if h.lead != 1 or h.dies_per_package < 2:
        return False
    xs, _ = _starts(h.channels_of_unit, h.dies_per_package, h.t_first_us, h.t_switch_us, t_xfer_page_us,
                    host_page_us, 1)
    xs = np.asarray(xs, dtype=np.float64)
    # die k + 1 programs from xs[:, k + 1] + t_xfer; die k ended at xs[:, k] + t_xfer + tPROG
    return not np.any(xs[:, 1:] < xs[:, :-1] + t_prog_us - SMOOTH_US)


def _fewer_packages_dealt_die_by_die(r: RiseResult, t_xfer_page_us: float, t_prog_us: float,
                                     host_page_us: float) -> str:
    """Why a count read through the programs' ends cannot be told from fewer packages of
    more dies dealt die by die, or "": the other side of :func:`_die_rounds_after_ends`.  A
    plausible hypothesis of fewer packages, dealt die-major, whose next die starts to program
    no earlier than an averaging width before its package's last one ends, draws the current
    of one-die packages each started as an earlier one ends — the answer's — whatever its
    score: the fits keep a package's current on between its dies' programs, which a package
    whose dies take turns need not do, so its misfit there is the model's, not the data's
    (blind datasheet seed 718: 4 packages of 2 dies dealt die by die, a page every 109 µs from
    a 150 MB/s host, tPROG 307 µs, read as 8 one-die packages, the 4 × 2 fitting worse by
    23–41)."""
    n = r.packages_per_unit
    for h in r.hypotheses:
        if h.plausible and h.packages_per_unit < n and _rounds_after_ends(h, t_xfer_page_us, t_prog_us, host_page_us):
            return (f"{h.packages_per_unit} packages of {h.dies_per_package} dies dealt die by die start each next "
                    f"die's program no earlier than an averaging width ({SMOOTH_US:g} µs) before its last one "
                    f"ends, which draws the current of {n} packages started as earlier ones end: the rise cannot "
                    "tell them apart")
    return ""


def _staggered_larger_count(r: RiseResult, t_xfer_page_us: float, t_prog_us: float, host_page_us: float) -> str:
    """Why a count read through the programs' ends cannot be told from a larger one, or "".

    A plausible hypothesis of more packages than the answer, within :data:`DECISIVE` of it,
    whose packages, under the given timing (each from its first page's end to its last die's
    end at tPROG), never have more programs on at once for longer than an averaging width
    (:data:`SMOOTH_US`) than the answer has packages: such packages — staggered by a shared
    channel, each starting as its pages have crossed — never raise the current above the
    level the smaller count reaches, so only the times of their starts and falls tell the two
    apart, and the falls are what the fits model least surely (±:data:`PROG_SPREAD` tPROG).
    Fewer packages of more dies, their starts spaced to match, draw the same staircase
    (datasheet seed 621: 4 packages of 2 dies on one channel, a start every 137 µs, 286 µs
    of program each — never more than 2 at once — read as 2 packages 208 µs apart).  Where
    the larger count would put more programs on at once than the answer has packages (dev
    seeds 434, 551), the level shows it and the fit's margin stands."""
    best = min((h for h in r.hypotheses if h.plausible and h.packages_per_unit == r.packages_per_unit),
               key=lambda h: h.score, default=None)
    if best is None:
        return ""
    for h in sorted(r.hypotheses, key=lambda h: h.score):
        if not h.plausible or h.packages_per_unit <= best.packages_per_unit or h.score - best.score >= DECISIVE:
            continue
        xs, prog = _starts(h.channels_of_unit, h.dies_per_package, h.t_first_us, h.t_switch_us, t_xfer_page_us,
                           host_page_us, h.lead or None)
        ends = np.asarray(xs, dtype=np.float64)[:, -1] + t_xfer_page_us + t_prog_us
        # k programs on together for longer than an averaging width <=> the k intervals,
        # each shortened by half a width at both ends, still overlap
        a, b = np.asarray(prog, dtype=np.float64) + SMOOTH_US / 2, ends - SMOOTH_US / 2
        at_once = int(np.max(np.sum((a[None, :] <= a[:, None]) & (b[None, :] > a[:, None]), axis=1)))
        if at_once <= best.packages_per_unit:
            return (f"{h.packages_per_unit} packages, their programs starting {np.diff(prog).mean():.0f} µs apart, "
                    f"fit within {DECISIVE:g} and never have more than {at_once} programming at once: the level "
                    f"of the rise cannot tell them from {best.packages_per_unit}, only their ends can, which the "
                    f"fits cannot time surely")
    return ""


def _rise_on(data: _RiseData, unit_pages: int, channels: int, packages: int, t_xfer_page_us: float,
             t_prog_us: float) -> RiseResult:
    """Every hypothesis fitted on one stretch of the mean rise, and the decision."""
    hyps: list[RiseHypothesis] = []
    coarse = _coarse_columns(data, unit_pages)  # every hypothesis' first grid (ppu × dies = unit_pages)
    # every count that divides both, not only powers of two: a 3-package unit on an
    # 11-channel drive had no rival, so its one-package fit stood unopposed ("high")
    for ppu in range(1, min(unit_pages, packages) + 1):
        if unit_pages % ppu or packages % ppu or unit_pages // ppu > MAX_DIES:
            continue
        dies = unit_pages // ppu
        # page-gated (each page sent as it arrives) wherever the host link's current is in the
        # fit: its column starts with the host data, and a controller that streams sends its
        # first page one host page after that, one that waits for the package's pages `dies`
        # host pages after — where the host is faster than the channel the two differ only
        # there, but no fitted gap makes one the other: the waiting model must misplace the
        # link's end or the first transfer (datasheet seed 621: 4 packages of 2 dies on one
        # channel, streamed, fitted worse than 2 packages 208 µs apart at "high").  (Die-major
        # for one package only shifts its start, which the fitted gap absorbs.)
        leads = (dies,) if dies == 1 else (dies,) + ((1,) if ppu > 1 else ()) + (
            (PAGE_GATED,) if data.host_page_us > 0 else ())
        for (pattern, schemes), lead in ((ps, ld) for ps in _patterns(channels, packages, ppu, dies).items()
                                         for ld in leads):
            _, t_b, g, s = _grid_search(data, pattern, ppu, dies, lead, t_xfer_page_us, t_prog_us, coarse)
            hyps.append(_hypothesis(data, pattern, schemes, ppu, dies, lead, t_b, g, s, t_xfer_page_us, t_prog_us))
    hyps.sort(key=lambda h: h.score)
    return _decide(data, hyps, t_xfer_page_us, t_prog_us)


def host_page_time_us(page_size_bytes: int, host_rate_bytes_per_s: float | None) -> float:
    """One page's time over the host link in µs (0 where no host rate is given: no host column)."""
    return page_size_bytes / host_rate_bytes_per_s * 1e6 if host_rate_bytes_per_s else 0.0


def _rise_data(waves_a, t_s, end_s, *, t_prog_us, page_size_bytes, host_rate_bytes_per_s, noise_a,
               before_falls: float | None = None) -> _RiseData:
    """Mean of the repeats, averaged over :data:`SMOOTH_US`, cut to the stretch the
    hypotheses differ on (from before the onset to where programs may start to end; with
    ``before_falls`` (the page transfer time), to where the first could: the first page in
    from the host and over its channel, then :data:`LOWER_PAGE` tPROG)."""
    waves = np.atleast_2d(np.asarray(waves_a, dtype=np.float64))
    host_page_us = host_page_time_us(page_size_bytes, host_rate_bytes_per_s)
    t_us = np.asarray(t_s, dtype=np.float64) * 1e6
    ends_us = np.asarray(end_s, dtype=np.float64) * 1e6
    dt = float(np.median(np.diff(t_us)))
    mean = waves.mean(axis=0)
    width = max(SMOOTH_US, dt)
    w = min(mean.size, max(1, int(round(width / dt))))
    sm = moving_average(mean, w)  # charz's alignment: value k belongs to sample k + w // 2
    t_us = t_us[w // 2: w // 2 + sm.size]
    # the early pre-trigger part only: a trigger on the rising current puts its start just before 0
    before = t_us < t_us[0] + 0.4 * max(0.0, -t_us[0])
    sigma = float(np.std(sm[before])) if before.sum() > 8 else noise_a / np.sqrt(waves.shape[0])
    peak = float(np.max(sm))
    # the controller's start: where the mean first leaves the idle level
    # (on the averaged curve a step shows half an average early; the grid below looks past it)
    onset = float(t_us[np.argmax(sm > max(0.03 * peak, 8 * sigma))])
    end = float(np.median(ends_us))
    # Up to where programs may start to end: what lies beyond is the program-time spread,
    # which no hypothesis predicts better than another.
    t_end = max(onset + 0.6 * t_prog_us, end - (1.0 - PROG_SPREAD) * t_prog_us)
    # ... but no more than 0.6 tPROG past the moment the current first reaches its top: every
    # start lies before or near it (a start raises the current), while a long unit's lower
    # pages (MLC/TLC: ~0.6× tPROG) may end their packages' programs well before the write
    # ends — falls no hypothesis models, which a hypothesis with spare packages fits best
    t_top = float(t_us[np.argmax(sm >= peak - max(0.03 * peak, 6 * sigma))])
    t_end = min(t_end, max(onset, t_top) + 0.6 * t_prog_us)
    if before_falls is not None:
        t_end = min(t_end, onset + host_page_us + before_falls + LOWER_PAGE * t_prog_us)
    step = max(1, int(round(GRID_US / dt)))
    sel = np.flatnonzero((t_us >= onset - 3 * width) & (t_us <= t_end))[::step]
    t, y = t_us[sel], sm[sel]
    n_eff = max(4.0, (t[-1] - t[0]) / width)
    # the controller's busy current ends with each repeat (the mean falls by 1/R at each end)
    busy_off = _ramps(t, ends_us[None, :], width)[0].mean(axis=1)
    busy_end = np.mean([_ramp_up(t, e, width) for e in ends_us], axis=0)
    return _RiseData(t, y, width, onset, end, ends_us, n_eff, host_page_us, busy_off, busy_end)


_COARSE_BUSY = np.array([-6.0, 0.0, 6.0, 12.0])  # the coarse grid's busy starts, µs from the onset
_COARSE_GAP = np.arange(0.0, 79.0, 6.0)  # ... and gaps from the busy start to the first page


def _grid_columns(data: _RiseData, tbs: np.ndarray, gs: np.ndarray, unit_pages: int):
    """What a grid's points share beyond their channel pattern: the busy column of each busy
    start (``tbs``, from the onset), the distinct first starts (busy start + gap ``gs``; the
    starts depend on the two only through their sum, so the transfer and program columns are
    drawn once per distinct first start and switch delay), which of them each (busy start,
    gap) is, and the host link's column of each (its current depends on the first start
    alone; none where no host rate is given)."""
    t, width, onset = data.t, data.width, data.onset
    busy_of = _ramps(t, (onset + tbs)[:, None], width)[:, :, 0] - data.busy_off
    firsts, which = np.unique(np.round(tbs[:, None] + gs[None, :], 9), return_inverse=True)
    host = (_host_columns(t, onset + firsts, unit_pages, data.host_page_us, width) if data.host_page_us > 0
            else np.empty((0, t.size)))
    return busy_of, firsts, which, host


def _coarse_columns(data: _RiseData, unit_pages: int):
    """:func:`_grid_columns` of the coarse grid, which every hypothesis' search starts on."""
    return _grid_columns(data, _COARSE_BUSY, _COARSE_GAP, unit_pages)


def _grid_search(data: _RiseData, pattern, ppu: int, dies: int, lead: int, t_xfer_page_us: float,
                 t_prog_us: float, coarse=None) -> tuple[float, float, float, float]:
    """The busy start, the gap to the first page and the switch delay that fit one channel
    pattern best: a coarse grid, then a finer one around its best point, every point of a
    grid fitted at once (batched normal equations).  (rss, busy start, gap, switch delay)."""
    t, y, width, onset = data.t, data.y, data.width, data.onset
    best = None
    # switch delays: a selection delay of a few µs to a page transfer, or a controller that
    # sends one page at a time, a package's pages in a row: the next package's first page
    # then follows the previous package's last by a selection delay, (dies − 1) page
    # transfers after its first (otherwise the only way to space starts that far is to
    # invent packages that share a channel — 8 packages of 2 dies for 4 of 4)
    serial = ((dies if lead == PAGE_GATED else lead) - 1) * t_xfer_page_us + np.arange(2.0, 63.0, 6.0)
    unit_pages = ppu * dies
    coarse = _coarse_columns(data, unit_pages) if coarse is None else coarse
    grid = (_COARSE_BUSY, _COARSE_GAP, np.unique(np.r_[np.arange(2.0, 63.0, 6.0), serial[serial > 62.0]]))
    for rnd in range(2):
        if rnd == 1:
            _, tb0, g0, s0 = best
            grid = (np.arange(tb0 - onset - 4, tb0 - onset + 4.1, 2.0), np.arange(max(0, g0 - 4), g0 + 4.1, 2.0),
                    np.arange(max(0.5, s0 - 4), s0 + 4.1, 2.0))
        tbs, gs, ss = grid
        ss = ss if ppu > 1 else ss[:1]
        # the busy columns, the distinct first starts and their host columns of the coarse grid
        # are every hypothesis' (``coarse``, drawn once by :func:`_coarse_columns`)
        busy_of, firsts, which, host = coarse if rnd == 0 else _grid_columns(data, tbs, gs, unit_pages)
        inv = (which.reshape(tbs.size, gs.size)[:, :, None] * ss.size + np.arange(ss.size)).ravel()
        prog, xs = _starts_batch(pattern, dies, onset + np.repeat(firsts, ss.size),
                                 np.broadcast_to(ss, (firsts.size, ss.size)).ravel(), t_xfer_page_us,
                                 data.host_page_us, lead)
        # Only timings that reach the measured end compete (the plausibility test of
        # :func:`_hypothesis`): a switch delay that fits the first starts but would end the
        # unit's last program long before the write ended is not this drive's (die-major units
        # of 32 pages: a delay 14 µs short per page ends 700 µs early).  Where none does, the
        # best fit stands and is judged implausible.  The others' columns are not drawn.
        last = np.max(xs[..., -1], axis=-1) + t_xfer_page_us + t_prog_us - data.end
        reach = (last >= -UPPER_PAGE_SLACK * t_prog_us - 2 * width) & (last <= DURATION_SLACK * t_prog_us + 2 * width)
        reach = reach if reach.any() else np.ones(reach.size, dtype=bool)
        starts, points = np.flatnonzero(reach), np.flatnonzero(reach[inv])
        xf, on = _columns_batch(t, prog[starts], xs[starts], t_xfer_page_us, t_prog_us, width,
                                contiguous=lead not in (PAGE_GATED, 1) or dies == 1)
        renumber = np.empty(reach.size, dtype=np.int64)
        renumber[starts] = np.arange(starts.size)
        G_k, b_k = _normal_equations(busy_of, xf, on, host, y, points // (gs.size * ss.size), renumber[inv[points]],
                                     starts // ss.size)
        rss_k = np.full(inv.size, np.inf)
        rss_k[points] = _grid_rss(G_k, b_k, float(y @ y))
        i = int(np.argmin(rss_k))
        if best is None or rss_k[i] < best[0]:
            # point i of the grid, (busy start, gap, switch delay) in C order, without meshgrids
            i_tb, i_rest = divmod(i, gs.size * ss.size)
            best = (float(rss_k[i]), onset + float(tbs[i_tb]), float(gs[i_rest // ss.size]), float(ss[i_rest % ss.size]))
    return best


def _hypothesis(data: _RiseData, pattern, schemes, ppu: int, dies: int, lead: int, t_b: float, g: float, s: float,
                t_xfer_page_us: float, t_prog_us: float) -> RiseHypothesis:
    """Refit the grid's best point in float64; score it (BIC on independent stretches) and
    say whether its amplitudes and its end look like packages."""
    t, y, width, end = data.t, data.y, data.width, data.end
    xfer, prog = _starts(pattern, dies, t_b + g, s, t_xfer_page_us, data.host_page_us, lead)
    X = _design(t, _busy(data, t_b), xfer, prog, dies, t_xfer_page_us, t_prog_us, width,
                t_b + g, data.host_page_us)
    XtX = np.einsum("ti,tj->ij", X, X)
    c1, r1 = _fit_batch(XtX[None], np.einsum("ti,t->i", X, y)[None], float(y @ y))
    coef, rss = c1[0], float(r1[0])
    k = X.shape[1] + 3
    score = data.n_eff * np.log(max(rss, 1e-30) / t.size) + k * np.log(data.n_eff)
    # standard errors of the amplitudes on the independent-stretch scale
    s2 = rss / max(1.0, t.size - X.shape[1]) * (t.size / data.n_eff)
    # a host-link current fitted at its bound (none) is not in the fit: its column, nearly the
    # busy column's on a slow link's long unit, must not widen the program step's error
    # (dev seed 102: 8 die-major packages, host at 0, their step "did not show")
    free = XtX if X.shape[1] == 3 or coef[3] > 0 else XtX[:3, :3]
    se = np.sqrt(np.clip(_inverse_diagonal(free), 0, None) * s2)
    amps = coef[2:3]  # the program current (the host link's, if fitted, follows)
    why = ""
    last = float(np.max(np.asarray(xfer)[:, -1])) + t_xfer_page_us + t_prog_us
    if not -UPPER_PAGE_SLACK * t_prog_us - 2 * width <= last - end <= DURATION_SLACK * t_prog_us + 2 * width:
        why = f"its last program would end at {last:.0f} µs, the write ends at {end:.0f} µs"
    elif np.any(amps <= MIN_STEP_Z * se[2:3]):
        why = "a package's program step does not show"
    return RiseHypothesis(ppu, dies, pattern, tuple(sorted(schemes)), float(s), float(t_b + g), float(t_b),
                          tuple(float(p) for p in prog), tuple(float(c) for c in coef), float(score),
                          not why, why, lead)


def _decide(data: _RiseData, hyps: list[RiseHypothesis], t_xfer_page_us: float, t_prog_us: float) -> RiseResult:
    """The package count: the best plausible hypothesis against every other count."""
    t, y = data.t, data.y
    if not hyps:
        return RiseResult(None, None, UNDETERMINED, UNDETERMINED, "no package count divides the unit and the drive",
                          "", t, y, np.empty(0), ())
    # Only hypotheses whose steps look like packages compete: one with a step of nothing,
    # or of negative current, is a smaller hypothesis with spare freedom to fit ripple.
    fair = [h for h in hyps if h.plausible]
    if not fair:
        b = hyps[0]
        return RiseResult(None, None, UNDETERMINED, UNDETERMINED,
                          f"no package count explains the rise of a one-unit write ({b.packages_per_unit} "
                          f"package(s) fit best, but {b.why_not})", "", t, y, np.empty(0), tuple(hyps))
    best = fair[0]
    xfer, prog = _starts(best.channels_of_unit, best.dies_per_package, best.t_first_us, best.t_switch_us,
                         t_xfer_page_us, data.host_page_us, best.lead or None)
    fitted = _design(t, _busy(data, best.t_busy_us), xfer, prog, best.dies_per_package,
                     t_xfer_page_us, t_prog_us, data.width, best.t_first_us,
                     data.host_page_us) @ np.array(best.amplitudes_a)
    desc = (f"{best.packages_per_unit} package(s) starting at "
            + ", ".join(f"{p - best.program_starts_us[0]:.0f}" for p in best.program_starts_us) + " µs")
    # Every other package count is a rival, plausible or not: an implausible one that fits
    # better means the rise holds something no hypothesis explains.
    rival = next((h for h in hyps if h.packages_per_unit != best.packages_per_unit), None)
    margin = np.inf if rival is None else rival.score - best.score
    hidden = _start_under_host_end(data, hyps, best, t_xfer_page_us, t_prog_us)
    conf = HIGH if margin >= DECISIVE else MEDIUM if margin >= SUGGESTIVE else UNDETERMINED
    if hidden is not None:
        conf = UNDETERMINED
        reason = (f"the rise of a one-unit write fits {desc}, and {hidden.packages_per_unit} package(s) as well but "
                  "for one start where the host link goes quiet: a program current less the host link's, both "
                  "unknown, may change the current by nothing there")
    elif margin < 0:
        reason = (f"the rise of a one-unit write fits {desc} best among plausible counts, but "
                  f"{rival.packages_per_unit} package(s) fit it better ({rival.why_not})")
    else:
        reason = (f"the rise of a one-unit write shows {desc}"
                  + ("" if rival is None else f"; {rival.packages_per_unit} package(s) fit worse by {margin:.0f}"))
    ppu = best.packages_per_unit if conf != UNDETERMINED else None
    leaning = best.packages_per_unit if hidden is None and margin >= 0 else None
    scheme, s_conf, s_reason = _decide_scheme(fair, best, ppu, t_xfer_page_us, data.host_page_us)
    return RiseResult(ppu, scheme, conf, s_conf, reason, s_reason, t, y, fitted, tuple(hyps), leaning)


def _start_under_host_end(data: _RiseData, hyps: list[RiseHypothesis], best: RiseHypothesis,
                          t_xfer_page_us: float, t_prog_us: float) -> RiseHypothesis | None:
    """The best hypothesis of a larger count whose starts are the best's (each within one
    averaging width) but one, and that one within an averaging width of where its host link
    goes quiet (its first start + the unit's pages at the host rate): that step is a program
    current less a host-link current, both unknown, and may be nothing, so no fit can say the
    package is not there (dev seed 372: a 2-package unit's first start as 20 mA of host link
    ended).  One end hides one start: a rival with more starts of its own is judged by them.
    The rival stands when, with the host link drawing from the controller's start and each
    package its own current (:func:`_own_currents_score`), it is not decisively (by
    :data:`DECISIVE`) worse than the best on the same terms: the margin the plain fits give
    does not account for a host current they cannot see (seed 372 at ×0.5: 25 plain, 10 so).
    None where no host rate is given or no such hypothesis fits."""
    if data.host_page_us <= 0:
        return None
    seen: set[int] = set()
    for h in hyps:
        if h.packages_per_unit <= best.packages_per_unit or h.packages_per_unit in seen or not h.plausible:
            continue
        seen.add(h.packages_per_unit)
        quiet = h.t_first_us + h.packages_per_unit * h.dies_per_package * data.host_page_us
        extra = [p for p in h.program_starts_us if all(abs(q - p) >= data.width for q in best.program_starts_us)]
        if len(extra) != 1 or abs(extra[0] - quiet) >= data.width:
            continue
        # judged on equal terms: the best too with the host link from the controller's start
        own_best = min(best.score, _own_currents_score(data, best, t_xfer_page_us, t_prog_us))
        if _own_currents_score(data, h, t_xfer_page_us, t_prog_us) - own_best < DECISIVE:
            return h
    return None


def _own_currents_score(data: _RiseData, h: RiseHypothesis, t_xfer_page_us: float, t_prog_us: float) -> float:
    """The best score of ``h``'s channel pattern and switch delay with the host link drawing
    from the controller's start, each package its own program current (least squares, every
    extra current counted in the score) and its first start moved by up to an averaging width
    (the grid placed it under the other host column): whether the count fits the rise as well
    as the best once the two currents that meet where the link goes quiet, and the packages'
    spread (±15 %), are what the data say.  Used only to judge a start the host link's end may
    hide, not to rank counts: a current per package lets a wrong count fit ripple."""
    t, width = data.t, data.width
    busy = _busy(data, h.t_busy_us)
    unit_pages = h.packages_per_unit * h.dies_per_package
    best = np.inf
    for first in h.t_first_us + np.arange(-width, width + 0.1, 2.0):
        xs, prog = _starts(h.channels_of_unit, h.dies_per_package, first, h.t_switch_us, t_xfer_page_us,
                           data.host_page_us, h.lead or None)
        xf = _design(t, busy, xs, prog, h.dies_per_package, t_xfer_page_us, t_prog_us, width)[:, 1]
        xs = np.atleast_2d(np.asarray(xs, dtype=np.float64))
        fall = _ramps(t, (xs[:, -1] + t_xfer_page_us + t_prog_us)[None], 2 * PROG_SPREAD * t_prog_us)[0]
        each = _ramps(t, np.asarray(prog, dtype=np.float64)[None], width)[0] * (1.0 - fall)  # T × P
        for lag in (0.0, 6.0, 12.0):  # the link may wake a little after the controller
            host = _ramp_up(t, h.t_busy_us + lag, width) - _ramp_up(t, first + unit_pages * data.host_page_us, width)
            A = np.column_stack([busy, xf, each, host])
            c, *_ = np.linalg.lstsq(A, data.y, rcond=None)
            amps = c[2:-1]
            # every package a package (none below half the largest: they differ by ±15 %), and
            # no current negative: else the hidden package is fitted away and the count is not
            # the one judged
            if np.all(c >= 0) and amps.min() >= 0.5 * amps.max():
                best = min(best, float(np.sum((data.y - A @ c) ** 2)))
    k = 3 + h.packages_per_unit + 3
    return float(data.n_eff * np.log(max(best, 1e-30) / t.size) + k * np.log(data.n_eff))


def _decide_scheme(fair: list[RiseHypothesis], best: RiseHypothesis, ppu: int | None, t_xfer_page_us: float,
                   host_page_us: float) -> tuple[str | None, str, str]:
    """The channel pattern: decided only against every other pattern of the same package count.
    (scheme or None, confidence, reason)."""
    scheme, s_conf, s_reason = None, UNDETERMINED, "one package per unit: the rise shows no walk"
    if not (ppu and ppu > 1):
        return scheme, s_conf, s_reason
    same = [h for h in fair if h.packages_per_unit == ppu]
    other = next((h for h in same[1:] if set(h.schemes) != set(best.schemes)), None)
    labels = set(best.schemes)
    # Timing finer than the averaging is not evidence: ripple and per-package spread move
    # a fitted step by a few µs, so a walk whose starts fall within half an average of
    # the best's is not told apart, whatever the score says.
    alike = next((h for h in same[1:] if set(h.schemes) != labels and _can_start_alike(
        h, best, t_xfer_page_us, host_page_us)), None)
    if len(labels) != 1:
        return scheme, s_conf, f"the unit's channel pattern fits walks named {', '.join(sorted(labels))}"
    if alike is not None:
        return scheme, s_conf, (f"{'/'.join(labels)} and {'/'.join(alike.schemes)} put the program starts within "
                                f"{SAME_START_US:.0f} µs of each other: the rise cannot tell them apart")
    label = next(iter(labels))
    m = np.inf if other is None else other.score - best.score
    s_conf = HIGH if m >= DECISIVE else MEDIUM if m >= SUGGESTIVE else UNDETERMINED
    pat = "every package on its own channel" if len(set(best.channels_of_unit)) == ppu else (
        f"packages on channels {'-'.join(str(c) for c in best.channels_of_unit)}")
    gaps = np.diff(best.program_starts_us)
    s_reason = (f"program starts {gaps.min():.0f}–{gaps.max():.0f} µs apart fit {pat} ({label})"
                + ("" if other is None else f"; {'/'.join(other.schemes)} fits worse by {m:.0f}"))
    return (label if s_conf != UNDETERMINED else None), s_conf, s_reason


__all__ = ["RiseHypothesis", "RiseResult", "unit_rise"]
