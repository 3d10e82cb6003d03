"""The grid of :mod:`charz.analysis._rise`'s least-squares fits, compiled with numba.

Why compiled: the rise of a one-unit write is fitted for every package count, channel
pattern and page order on a grid of busy starts, gaps and switch delays — a few
hundred designs of ~100 points each, fifteen times over.  As numpy passes that was
K × T × P ramp arrays and a dozen small batched solves per grid, about half of the
whole inference; the arithmetic is a few million multiply-adds.  One loop here draws
each design's transfer and program columns and solves its bounded 3 × 3 normal
equations (4 × 4 with the host link's column) without forming the arrays.

The rules (the columns, the bounds on the currents and their fall-back subsets) are
documented in :mod:`charz.analysis._rise`; this module holds only their loops, in the
same arithmetic: the columns in float32 exactly as ``_rise._columns_batch`` draws them
(every value the same bits), the fits in float64.  Pure: arrays in, arrays out.
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def _ramp(tt, a, inv, half):
    """``_rise._ramps`` at one time and one step: ((t − at)·(1/width) + ½) clipped to [0, 1],
    each operation rounded to float32 as numpy's in-place passes round it."""
    r = tt - a
    r = r * inv
    r = r + half
    if r < 0.0:
        r = np.float32(0.0)
    if r > 1.0:
        r = np.float32(1.0)
    return r


@_jit
def grid_columns(t, prog, xs, t_xfer, t_prog, width, fall_width, contiguous):
    """Transfer and program columns (K × T, float64) of K sets of program starts (K × P)
    and page transfer starts (K × P × dies): ``_rise._columns_batch`` with float32 ramps.

    A package's program current falls through a ramp of ``fall_width`` centred t_xfer + t_prog
    after its last page starts to move."""
    K, P = prog.shape[0], prog.shape[1]
    D = xs.shape[2]
    T = t.shape[0]
    t0 = t[0] if T else 0.0
    tt = np.empty(T, dtype=np.float32)
    for i in range(T):
        tt[i] = np.float32(t[i] - t0)
    inv = np.float32(1.0 / width)
    inv_f = np.float32(1.0 / fall_width)
    half = np.float32(0.5)
    one = np.float32(1.0)
    xf = np.zeros((K, T))
    on = np.zeros((K, T))
    span = D * t_xfer
    for k in range(K):
        for p in range(P):
            a_on = np.float32(prog[k, p] - t0)
            a_fall = np.float32(((xs[k, p, D - 1] + t_xfer) + t_prog) - t0)
            if contiguous:
                a_up = np.float32(xs[k, p, 0] - t0)
                a_dn = np.float32((xs[k, p, 0] + span) - t0)
                for i in range(T):
                    v = _ramp(tt[i], a_up, inv, half) - _ramp(tt[i], a_dn, inv, half)
                    xf[k, i] += np.float64(v)
            else:
                for d in range(D):
                    a_up = np.float32(xs[k, p, d] - t0)
                    a_dn = np.float32((xs[k, p, d] + t_xfer) - t0)
                    for i in range(T):
                        v = _ramp(tt[i], a_up, inv, half) - _ramp(tt[i], a_dn, inv, half)
                        xf[k, i] += np.float64(v)
            for i in range(T):
                keep = one - _ramp(tt[i], a_fall, inv_f, half)
                on[k, i] += np.float64(_ramp(tt[i], a_on, inv, half) * keep)
    return xf, on


@_jit
def _face_fit(g, b, yy, face, out, a, x):
    """The least squares on one face of the bounds: coefficient i is 0 where ``face[i]`` < 0,
    else free variable ``face[i]`` (two coefficients on one variable are tied equal) —
    ``_rise._fit_batch_numpy``'s Eᵀ G E system, solved by Gaussian elimination with partial
    pivoting.  NaN where singular by ``_rise._solve``'s test (|det| against the largest
    entry to the n-th power); else the residual, the amplitudes in ``out``.  ``a`` (≥ n × n + 1)
    and ``x`` (≥ n) are workspace: allocating them per call cost more than the solve."""
    n = g.shape[0]
    m = 0
    for i in range(n):
        m = max(m, face[i] + 1)
    for i in range(m):
        for j in range(m + 1):
            a[i, j] = 0.0
    for i in range(n):
        fi = face[i]
        if fi < 0:
            continue
        a[fi, m] += b[i]
        for j in range(n):
            if face[j] >= 0:
                a[fi, face[j]] += g[i, j]
    big = 1.0
    for i in range(m):
        for j in range(m):
            big = max(big, abs(a[i, j]))
    det = 1.0
    for c in range(m):
        piv = c
        for r in range(c + 1, m):
            if abs(a[r, c]) > abs(a[piv, c]):
                piv = r
        if piv != c:
            for j in range(m + 1):
                a[c, j], a[piv, j] = a[piv, j], a[c, j]
            det = -det
        det *= a[c, c]
        if a[c, c] == 0.0:
            return np.nan
        for r in range(c + 1, m):
            f = a[r, c] / a[c, c]
            for j in range(c, m + 1):
                a[r, j] -= f * a[c, j]
    if not abs(det) > 1e-12 * big ** m:
        return np.nan
    for c in range(m - 1, -1, -1):
        v = a[c, m]
        for j in range(c + 1, m):
            v -= a[c, j] * x[j]
        x[c] = v / a[c, c]
    for i in range(n):
        out[i] = x[face[i]] if face[i] >= 0 else 0.0
    cb = 0.0
    cgc = 0.0
    for i in range(n):
        cb += out[i] * b[i]
        for j in range(n):
            cgc += out[i] * g[i, j] * out[j]
    return max(yy - 2 * cb + cgc, 0.0)


@_jit
def _feasible(c, tol):
    """busy ≥ 0, 0 ≤ transfer ≤ program (+ tol), and a host-link current (if fitted) ≥ 0."""
    ok = c[0] >= 0 and c[1] >= 0 and c[1] <= c[2] + tol
    for i in range(3, c.shape[0]):
        ok = ok and c[i] >= 0
    return ok


@_jit
def _bounded_fit(g, b, yy, faces, out, c, a, x):
    """The residual of ``_rise._fit``: the unconstrained least squares (``faces[0]``) where
    its currents can be, else the best of the other faces of the bounds that can; else the
    unconstrained one.  NaN where a system to solve is singular (a column of zeros): the
    caller takes numpy's least-norm answer there, as ``_rise._fit_batch`` does (LAPACK's
    pseudo-inverse would triple the compile time for a case the grid rarely meets).  The
    amplitudes go to ``out``."""
    n = g.shape[0]
    first = 0
    best = _face_fit(g, b, yy, faces[0], c, a, x)
    if np.isnan(best) and n == 4:
        # the host column in the others' span (``_rise._fit_batch_numpy``): fit without it,
        # on the faces where its current is none (the first of them unconstrained)
        first = -1
        for f in range(faces.shape[0]):
            if first < 0 and faces[f, 3] < 0:
                first = f
        best = _face_fit(g, b, yy, faces[first], c, a, x)
    if np.isnan(best):
        return np.nan
    out[:] = c
    if _feasible(c, 0.0):
        return best
    return _other_faces(g, b, yy, faces, first, best, out, c, a, x)


@_jit
def _other_faces(g, b, yy, faces, first, best, out, c, a, x):
    """:func:`_bounded_fit` past its first face (``faces[first]``, residual ``best``, its
    amplitudes in ``out``), which broke a bound: the best of the later faces that keep them,
    else that first fit; NaN where one is singular."""
    found = False
    for f in range(first + 1, faces.shape[0]):
        if first > 0 and faces[f, 3] >= 0:
            continue
        r = _face_fit(g, b, yy, faces[f], c, a, x)
        if np.isnan(r):
            return np.nan
        if _feasible(c, 1e-12) and (not found or r < best):
            best, found = r, True
            out[:] = c
    return best


@_jit
def normal_equations(busy_of, xf, on, host, y, which_busy, which_starts, host_of_starts):
    """Gram matrices (K × n × n) and Xᵀy (K × n) of every grid point k, whose design is busy
    column ``which_busy[k]``, transfer and program columns ``which_starts[k]`` and (n = 4,
    where ``host`` has rows) the host-link column of those starts, ``host_of_starts[u]``
    (the host link's current depends on the first start alone): from the products of the
    distinct columns (the K designs are never formed)."""
    nb, T = busy_of.shape
    nu = xf.shape[0]
    nh = host.shape[0]
    n = 4 if nh > 0 else 3
    bb = np.zeros(nb)
    by = np.zeros(nb)
    for j in range(nb):
        for i in range(T):
            bb[j] += busy_of[j, i] * busy_of[j, i]
            by[j] += busy_of[j, i] * y[i]
    # Every sum runs over the samples in order from zero, as a plain loop's would, but the
    # samples are the outer loop and the sets of starts the inner one: each step then adds to
    # nu independent sums side by side (in SIMD lanes) instead of waiting on one sum's last add.
    xT, oT = np.ascontiguousarray(xf.T), np.ascontiguousarray(on.T)
    xx, xo, oo, xy, oy = np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu)
    bx, bo = np.zeros((nb, nu)), np.zeros((nb, nu))
    hx, ho = np.zeros(nu), np.zeros(nu)
    for i in range(T):
        xi, oi, yi = xT[i], oT[i], y[i]
        for u in range(nu):
            xx[u] += xi[u] * xi[u]
            xo[u] += xi[u] * oi[u]
            oo[u] += oi[u] * oi[u]
            xy[u] += xi[u] * yi
            oy[u] += oi[u] * yi
        for j in range(nb):
            bji = busy_of[j, i]
            bxj, boj = bx[j], bo[j]
            for u in range(nu):
                bxj[u] += bji * xi[u]
                boj[u] += bji * oi[u]
    if nh > 0:
        hT = np.empty((T, nu))
        for u in range(nu):
            for i in range(T):
                hT[i, u] = host[host_of_starts[u], i]
        for i in range(T):
            hi, xi, oi = hT[i], xT[i], oT[i]
            for u in range(nu):
                hx[u] += hi[u] * xi[u]
                ho[u] += hi[u] * oi[u]
    hh, hy = np.zeros(nh), np.zeros(nh)
    bh = np.zeros((nb, nh))
    for h in range(nh):
        for i in range(T):
            hh[h] += host[h, i] * host[h, i]
            hy[h] += host[h, i] * y[i]
        for j in range(nb):
            s = 0.0
            for i in range(T):
                s += busy_of[j, i] * host[h, i]
            bh[j, h] = s
    K = which_busy.shape[0]
    gram = np.empty((K, n, n))
    xty = np.empty((K, n))
    for k in range(K):
        j, u = which_busy[k], which_starts[k]
        g = gram[k]
        g[0, 0] = bb[j]
        g[0, 1] = g[1, 0] = bx[j, u]
        g[0, 2] = g[2, 0] = bo[j, u]
        g[1, 1] = xx[u]
        g[1, 2] = g[2, 1] = xo[u]
        g[2, 2] = oo[u]
        xty[k, 0], xty[k, 1], xty[k, 2] = by[j], xy[u], oy[u]
        if nh > 0:
            h = host_of_starts[u]
            g[0, 3] = g[3, 0] = bh[j, h]
            g[1, 3] = g[3, 1] = hx[u]
            g[2, 3] = g[3, 2] = ho[u]
            g[3, 3] = hh[h]
            xty[k, 3] = hy[h]
    return gram, xty


@_jit
def bounded_fits(gram, xty, yy, faces):
    """``_rise._fit_batch`` compiled: amplitudes (K × n) and residual sums of squares (K) of
    K designs from their normal equations, on the faces ``faces`` (the first unconstrained);
    NaN residuals where a system is singular."""
    K, n = gram.shape[0], gram.shape[1]
    coef = np.zeros((K, n))
    rss = np.empty(K)
    c, a, x = np.empty(n), np.empty((n, n + 1)), np.empty(n)
    for k in range(K):
        rss[k] = _bounded_fit(gram[k], xty[k], yy, faces, coef[k], c, a, x)
    return coef, rss


@_jit
def grid_best_fits(gram, xty, yy, faces, slack):
    """The residuals of :func:`bounded_fits` where they can be a grid's least, +inf where they
    cannot: only the least residual (and where it lies) is wanted of a grid, and a
    bounded fit is never better than the unconstrained one, so a point whose unconstrained
    residual is more than ``slack`` (rounding's allowance) above a bounded residual already
    found can never be the least.  The unconstrained fit of every point first (its
    answer where its currents can be); then the others' bounded fits, least unconstrained
    residual first, until that bound passes the least found.  NaN where a system to solve is
    singular, as :func:`bounded_fits`.  Each residual found is the very one
    :func:`bounded_fits` gives (the same loops on the same numbers)."""
    K, n = gram.shape[0], gram.shape[1]
    rss = np.full(K, np.inf)
    bound = np.full(K, np.inf)
    out, c, a, x = np.empty(n), np.empty(n), np.empty((n, n + 1)), np.empty(n)
    first = np.empty((K, n))  # the unconstrained amplitudes of the points that break a bound
    least = np.inf
    for k in range(K):
        r = _face_fit(gram[k], xty[k], yy, faces[0], c, a, x)
        if np.isnan(r):
            r = _bounded_fit(gram[k], xty[k], yy, faces, out, c, a, x)
            rss[k] = r
        elif _feasible(c, 0.0):
            rss[k] = r
        else:
            bound[k] = r
            first[k] = c
            continue
        if r < least:
            least = r
    for k in np.argsort(bound):
        if not bound[k] <= least + slack:
            break
        out[:] = first[k]
        r = _other_faces(gram[k], xty[k], yy, faces, 0, bound[k], out, c, a, x)
        rss[k] = r
        if r < least:
            least = r
    return rss


@_jit
def unit_starts(channels, dies, t0, s, t_xfer, host_page_us, lead, page_gated):
    """``_rise._starts_batch``'s recurrence (the rules are documented there) for K first
    starts ``t0`` and switch delays ``s``: program starts (K × P) and page transfer starts
    (K × P × dies), in the same float64 operations as its numpy passes.  ``channels`` holds
    each package's channel (labels from 0); ``lead == page_gated`` marks the page-gated
    controller."""
    K, P = t0.shape[0], channels.shape[0]
    prog = np.empty((K, P))
    xs = np.empty((K, P, dies))
    n_ch = 0
    for k in range(P):
        n_ch = max(n_ch, channels[k] + 1)
    free = np.empty(n_ch)
    used = np.zeros(n_ch, dtype=np.bool_)
    for g in range(K):
        used[:] = False
        cursor = t0[g]
        if lead == 1 and dies > 1:
            for q in range(P * dies):
                k, d = q % P, q // P
                c = channels[k]
                start = max(cursor, t0[g] + (q + 1) * host_page_us)
                if used[c]:
                    start = max(start, free[c])
                xs[g, k, d] = start
                free[c], used[c] = start + t_xfer, True
                cursor = start + s[g]
                if d == 0:
                    prog[g, k] = start + t_xfer
            continue
        for k in range(P):
            c = channels[k]
            first = (k * dies + 1) if lead == page_gated else (k + 1) * lead
            start = max(cursor, t0[g] + first * host_page_us)
            if used[c]:
                start = max(start, free[c])
            if lead == page_gated:
                x = start
                xs[g, k, 0] = x
                for d in range(1, dies):
                    x = max(x + t_xfer, t0[g] + (k * dies + d + 1) * host_page_us)
                    xs[g, k, d] = x
                free[c] = x + t_xfer
            else:
                for d in range(dies):
                    xs[g, k, d] = start + d * t_xfer
                free[c] = start + lead * t_xfer
            used[c] = True
            cursor = start + s[g]
            prog[g, k] = start + t_xfer
    return prog, xs
