"""The grid of :mod:`charz.analysis._rise`'s least-squares fits, compiled with numba.

Why compiled: the rise of a one-unit write is fitted for every package count, channel
pattern and page order on a grid of busy starts, gaps and switch delays — a few
hundred designs of ~100 points each, fifteen times over.  As numpy passes that was
K × T × P ramp arrays and a dozen small batched solves per grid, about half of the
whole inference; the arithmetic is a few million multiply-adds.  One loop here draws
each design's transfer and program columns and solves its bounded 3 × 3 normal
equations without forming the arrays.

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
def _solve2(a, b, d, u, v):
    """[[a, b], [b, d]] x = (u, v) by cofactors; NaN when singular by ``_rise._solve``'s test
    (|det| against the largest entry squared), where numpy's least-norm answer takes over."""
    det = a * d - b * b
    scale = max(1.0, max(abs(a), abs(b), abs(d))) ** 2
    if abs(det) > 1e-12 * scale:
        return (d * u - b * v) / det, (a * v - b * u) / det
    return np.nan, np.nan


@_jit
def _solve1(a, u):
    if abs(a) > 1e-12 * max(1.0, abs(a)):
        return u / a
    return np.nan


@_jit
def _rss(c0, c1, c2, g, b, yy):
    """yᵀy − 2cᵀb + cᵀGc, never below zero (``_rise._fit_batch``'s residual)."""
    cb = c0 * b[0] + c1 * b[1] + c2 * b[2]
    g0 = g[0, 0] * c0 + g[0, 1] * c1 + g[0, 2] * c2
    g1 = g[1, 0] * c0 + g[1, 1] * c1 + g[1, 2] * c2
    g2 = g[2, 0] * c0 + g[2, 1] * c1 + g[2, 2] * c2
    return max(yy - 2 * cb + (c0 * g0 + c1 * g1 + c2 * g2), 0.0)


@_jit
def _bounded_fit(g, b, yy, out):
    """The residual of ``_rise._fit``: the unconstrained least squares where its currents
    can be (busy ≥ 0, 0 ≤ transfer ≤ program), else the best of the fall-back subsets
    (no transfer current; transfer as large as a program; no busy current; programs
    alone; transfer and program alike) that can; else the unconstrained one.  NaN where a
    system to solve is singular (a column of zeros): the caller takes numpy's least-norm
    answer there, as ``_rise._fit_batch`` does (LAPACK's pseudo-inverse would triple the
    compile time for a case the grid rarely meets).  The amplitudes go to ``out``."""
    m = g
    c00 = m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]
    c01 = m[1, 2] * m[2, 0] - m[1, 0] * m[2, 2]
    c02 = m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]
    det = m[0, 0] * c00 + m[0, 1] * c01 + m[0, 2] * c02
    big = 1.0
    for i in range(3):
        for j in range(3):
            big = max(big, abs(m[i, j]))
    if abs(det) > 1e-12 * big ** 3:
        a01 = m[0, 2] * m[2, 1] - m[0, 1] * m[2, 2]
        a02 = m[0, 1] * m[1, 2] - m[0, 2] * m[1, 1]
        a11 = m[0, 0] * m[2, 2] - m[0, 2] * m[2, 0]
        a12 = m[0, 2] * m[1, 0] - m[0, 0] * m[1, 2]
        a21 = m[0, 1] * m[2, 0] - m[0, 0] * m[2, 1]
        a22 = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
        x0 = (c00 * b[0] + a01 * b[1] + a02 * b[2]) / det
        x1 = (c01 * b[0] + a11 * b[1] + a12 * b[2]) / det
        x2 = (c02 * b[0] + a21 * b[1] + a22 * b[2]) / det
    else:
        return np.nan
    best = _rss(x0, x1, x2, g, b, yy)
    out[0], out[1], out[2] = x0, x1, x2
    if x0 >= 0 and x1 >= 0 and x1 <= x2:
        return best
    found = False
    for which in range(5):
        if which == 0:  # busy and program: no transfer current
            u, v = _solve2(g[0, 0], g[0, 2], g[2, 2], b[0], b[2])
            c0, c1, c2 = u, 0.0, v
        elif which == 1:  # busy, and transfer as large as a program
            u, v = _solve2(g[0, 0], g[0, 1] + g[0, 2], g[1, 1] + g[1, 2] + g[2, 1] + g[2, 2], b[0], b[1] + b[2])
            c0, c1, c2 = u, v, v
        elif which == 2:  # transfer and program: no busy current
            u, v = _solve2(g[1, 1], g[1, 2], g[2, 2], b[1], b[2])
            c0, c1, c2 = 0.0, u, v
        elif which == 3:  # programs alone
            c0, c1, c2 = 0.0, 0.0, _solve1(g[2, 2], b[2])
        else:  # transfer and program alike
            u = _solve1(g[1, 1] + g[1, 2] + g[2, 1] + g[2, 2], b[1] + b[2])
            c0, c1, c2 = 0.0, u, u
        if np.isnan(c0 + c1 + c2):
            return np.nan
        if c0 >= 0 and c1 >= 0 and c1 <= c2 + 1e-12:
            r = _rss(c0, c1, c2, g, b, yy)
            if not found or r < best:
                best, found = r, True
                out[0], out[1], out[2] = c0, c1, c2
    return best


@_jit
def normal_equations(busy_of, xf, on, y, which_busy, which_starts):
    """Gram matrices (K × 3 × 3) and Xᵀy (K × 3) of every grid point k, whose design is busy
    column ``which_busy[k]`` and transfer and program columns ``which_starts[k]``: from the
    products of the distinct columns (the K designs are never formed)."""
    nb, T = busy_of.shape
    nu = xf.shape[0]
    bb = np.zeros(nb)
    by = np.zeros(nb)
    for j in range(nb):
        for i in range(T):
            bb[j] += busy_of[j, i] * busy_of[j, i]
            by[j] += busy_of[j, i] * y[i]
    xx, xo, oo, xy, oy = np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu), np.zeros(nu)
    for u in range(nu):
        for i in range(T):
            xx[u] += xf[u, i] * xf[u, i]
            xo[u] += xf[u, i] * on[u, i]
            oo[u] += on[u, i] * on[u, i]
            xy[u] += xf[u, i] * y[i]
            oy[u] += on[u, i] * y[i]
    bx, bo = np.zeros((nb, nu)), np.zeros((nb, nu))
    for j in range(nb):
        for u in range(nu):
            sx = 0.0
            so = 0.0
            for i in range(T):
                sx += busy_of[j, i] * xf[u, i]
                so += busy_of[j, i] * on[u, i]
            bx[j, u], bo[j, u] = sx, so
    K = which_busy.shape[0]
    gram = np.empty((K, 3, 3))
    xty = np.empty((K, 3))
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
    return gram, xty


@_jit
def bounded_fits(gram, xty, yy):
    """``_rise._fit_batch`` compiled: amplitudes (K × 3) and residual sums of squares (K) of
    K designs from their normal equations; NaN residuals where a system is singular."""
    K = gram.shape[0]
    coef = np.zeros((K, 3))
    rss = np.empty(K)
    for k in range(K):
        rss[k] = _bounded_fit(gram[k], xty[k], yy, coef[k])
    return coef, rss

