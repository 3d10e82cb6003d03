"""The rise's compiled grid (``_rise_kernel``) against the plain numpy it replaces: the
transfer and program columns bit for bit (float32 ramps, as ``_columns_batch`` draws them),
and each grid point's bounded fit against an explicit least squares on its own design
(``_rise._fit``: lstsq, then the fall-back subsets on the bounds that bind); and ``_fit_batch``
on a grid (compiled) against its numpy passes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.analysis._rise import (_FACES, PAGE_GATED, PROG_SPREAD, _columns_numpy, _fit, _fit_batch,
                                 _fit_batch_numpy, _grid_rss, _host_columns, _ramps, _starts_batch)
from charz.analysis._rise_kernel import bounded_fits, grid_columns, normal_equations

pytestmark = pytest.mark.unit

WIDTH = 22.0


def _grid(pattern, dies, lead, t_xfer, host_page_us, rng, k=24):
    """k random (first start, switch delay) points on a 6 µs grid from before the onset."""
    t = np.arange(-66.0, 900.0, 6.0) + rng.uniform(0, 6)
    firsts = rng.uniform(-6, 90, k)
    ss = rng.uniform(0.5, 80, k)
    prog, xs = _starts_batch(pattern, dies, firsts, ss, t_xfer, host_page_us, lead)
    return t, prog, xs


@settings(deadline=None, max_examples=40)  # the first example compiles the kernel
@given(st.sampled_from([(0,), (0, 1), (0, 0), (0, 1, 0, 1), (0, 1, 2, 3), (0, 0, 1, 1), tuple(range(8))]),
       st.integers(1, 4), st.sampled_from([None, 1, PAGE_GATED]), st.floats(8.0, 60.0), st.floats(150.0, 1800.0),
       st.integers(0, 2**32 - 1))
def test_columns_equal_numpy_bit_for_bit(pattern, dies, lead, t_xfer, t_prog, seed):
    rng = np.random.default_rng(seed)
    host = 40.0 if lead == PAGE_GATED else 0.0
    t, prog, xs = _grid(pattern, dies, lead, t_xfer, host, rng)
    contiguous = lead != PAGE_GATED or dies == 1
    want_x, want_o = _columns_numpy(t, prog, xs, t_xfer, t_prog, WIDTH, np.float32, contiguous)
    got_x, got_o = grid_columns(t, prog, xs, t_xfer, t_prog, WIDTH, 2 * PROG_SPREAD * t_prog, contiguous)
    assert np.array_equal(got_x, want_x)
    assert np.array_equal(got_o, want_o)


@pytest.mark.parametrize("host_a", [None, 0.015, -0.02])  # no host rate given; a host link's current; below idle
@pytest.mark.parametrize("busy, xfer, prog_a", [
    (0.05, 0.01, 0.04),  # every bound slack: the plain least squares
    (0.05, 0.06, 0.04),  # transfer drawn above a program: capped at the program's
    (-0.02, 0.0, 0.04),  # a busy current below idle: none
    (0.0, -0.03, 0.05),  # negative transfer current: none
    (-0.05, -0.05, -0.01),  # nothing a drive draws: whichever subset can, or the plain fit
])
def test_bounded_rss_equals_explicit_least_squares(busy, xfer, prog_a, host_a):
    """A one-unit write drawn from stated currents (busy from 10 µs, two packages 60 µs
    apart, 40 µs transfers, 700 µs programs; where given, a host link of 30 µs a page
    from the first start) plus noise; every grid point's residual equals the bounded
    least squares of its own explicitly formed design."""
    rng = np.random.default_rng(7)
    t_xfer, t_prog = 40.0, 700.0
    t = np.arange(-66.0, 800.0, 6.0)
    tb = np.array([-6.0, 0.0, 6.0, 12.0])
    busy_of = _ramps(t, (10.0 + tb)[:, None], WIDTH)[:, :, 0]
    prog, xs = _starts_batch((0, 1), 1, np.repeat([10.0, 20.0, 30.0], 3), np.tile([20.0, 60.0, 90.0], 3),
                             t_xfer, 0.0)
    xf, on = grid_columns(t, prog, xs, t_xfer, t_prog, WIDTH, 2 * PROG_SPREAD * t_prog, True)
    truth_x, truth_o = grid_columns(t, np.array([[50.0, 110.0]]), np.array([[[10.0], [70.0]]]), t_xfer, t_prog,
                                    WIDTH, 2 * PROG_SPREAD * t_prog, True)
    y = busy * busy_of[1] + xfer * truth_x[0] + prog_a * truth_o[0] + rng.normal(0, 0.002, t.size)
    # one host column per first start (10, 20, 30 µs), as the grid draws them
    host = (np.empty((0, t.size)) if host_a is None else _host_columns(t, np.array([10.0, 20.0, 30.0]), 2, 30.0,
                                                                       WIDTH))
    if host_a is not None:
        y = y + host_a * _host_columns(t, np.array([10.0]), 2, 30.0, WIDTH)[0]
    which_busy = np.repeat(np.arange(tb.size), len(xf))
    which_starts = np.tile(np.arange(len(xf)), tb.size)
    which_host = which_starts // 3
    gram, xty = normal_equations(busy_of, xf, on, host, y, which_busy, which_starts, np.arange(len(xf)) // 3)

    def design(i, u, h):
        return np.column_stack([busy_of[i], xf[u], on[u]] + ([] if host_a is None else [host[h]]))

    # XᵀX and Xᵀy of each point's explicitly formed design
    designs = [design(i, u, h) for i, u, h in zip(which_busy, which_starts, which_host)]
    want_g = np.array([X.T @ X for X in designs])
    want_b = np.array([X.T @ y for X in designs])
    assert np.allclose(gram, want_g, rtol=1e-12, atol=0) and np.allclose(xty, want_b, rtol=1e-12, atol=1e-15)
    coef, got = bounded_fits(gram, xty, float(y @ y), _FACES[gram.shape[1]])
    for k, X in enumerate(designs):
        want_c, want_r = _fit(X, y)
        assert got[k] == pytest.approx(want_r, rel=1e-8, abs=1e-12 * float(y @ y))
        assert coef[k] == pytest.approx(want_c, rel=1e-6, abs=1e-9)
    # the grid's entry point: the compiled fits where numpy's passes would give the same
    c_np, r_np = _fit_batch_numpy(gram, xty, float(y @ y))
    c_k, r_k = _fit_batch(gram, xty, float(y @ y))
    assert np.allclose(r_k, r_np, rtol=1e-8, atol=1e-12 * float(y @ y)) and np.allclose(c_k, c_np, rtol=1e-6, atol=1e-9)


def test_singular_design_is_left_to_numpy_least_norm():
    """A design whose transfer column is all zeros (its pages moved before the stretch
    fitted) is singular: the kernel says so (NaN) and hands over the design's normal
    equations, on which numpy's least-norm fit gives the explicit least squares' residual."""
    rng = np.random.default_rng(3)
    t = np.arange(200.0, 900.0, 6.0)
    busy_of = _ramps(t, np.array([[150.0]]), WIDTH)[:, :, 0]  # busy all along: a column of ones
    xf = np.zeros((1, t.size))
    on = _ramps(t, np.array([[400.0]]), WIDTH)[:, :, 0]
    y = 0.03 + 0.05 * on[0] + rng.normal(0, 0.002, t.size)
    gram, xty = normal_equations(busy_of, xf, on, np.empty((0, t.size)), y, np.array([0]), np.array([0]),
                                 np.array([0]))
    assert np.isnan(bounded_fits(gram, xty, float(y @ y), _FACES[3])[1][0])
    X = np.column_stack([busy_of[0], xf[0], on[0]])
    assert np.allclose(gram[0], X.T @ X) and np.allclose(xty[0], X.T @ y)
    assert _fit_batch_numpy(gram, xty, float(y @ y))[1][0] == pytest.approx(_fit(X, y)[1], rel=1e-8)
    # and _fit_batch, given a grid holding it, answers it so
    two = _fit_batch(np.repeat(gram, 2, axis=0), np.repeat(xty, 2, axis=0), float(y @ y))[1]
    assert two == pytest.approx([_fit(X, y)[1]] * 2, rel=1e-8)


def test_host_column_that_is_the_busy_column_adds_nothing():
    """A host link that starts with the busy current and outlasts the stretch draws the
    same column: the 4-column system is singular, and both the kernel and numpy fit it
    without the host column (host current none), with the explicit 3-column residual."""
    rng = np.random.default_rng(5)
    t = np.arange(-60.0, 700.0, 6.0)
    busy_of = _ramps(t, np.array([[10.0]]), WIDTH)[:, :, 0]
    host = _host_columns(t, np.array([10.0]), 64, 30.0, WIDTH)  # 1.9 ms of host pages: past the stretch
    assert np.array_equal(host, busy_of)
    prog, xs = _starts_batch((0, 1), 1, np.array([10.0, 16.0]), np.array([30.0, 30.0]), 40.0, 0.0)
    xf, on = grid_columns(t, prog, xs, 40.0, 700.0, WIDTH, 2 * PROG_SPREAD * 700.0, True)
    y = 0.05 * busy_of[0] + 0.01 * xf[0] + 0.04 * on[0] + rng.normal(0, 0.002, t.size)
    gram, xty = normal_equations(busy_of, xf, on, host, y, np.array([0, 0]), np.array([0, 1]), np.array([0, 0]))
    c_k, r_k = _fit_batch(gram, xty, float(y @ y))
    c_np, r_np = _fit_batch_numpy(gram, xty, float(y @ y))
    for u in range(2):
        want_c, want_r = _fit(np.column_stack([busy_of[0], xf[u], on[u]]), y)
        assert r_k[u] == pytest.approx(want_r, rel=1e-8) and r_np[u] == pytest.approx(want_r, rel=1e-8)
        assert c_k[u] == pytest.approx(list(want_c) + [0.0], rel=1e-6, abs=1e-9)
        assert c_np[u] == pytest.approx(list(want_c) + [0.0], rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("pattern, dies, lead, t0, s, t_xfer, host, want_xs, want_prog", [
    # two packages on one channel, each its 2 pages in a row: the second waits for the channel
    ((0, 0), 2, None, 10.0, 5.0, 40.0, 0.0, [[10, 50], [90, 130]], [50, 130]),
    # die-major over two channels, a host page every 10 µs: one page to each package in turn,
    # each after its host page, its channel and the 5 µs selection since the last page
    ((0, 1), 2, 1, 0.0, 5.0, 40.0, 10.0, [[10, 50], [20, 60]], [50, 60]),
    # page-gated: each page sent as it arrives from a slow host (50 µs a page)
    ((0,), 3, PAGE_GATED, 0.0, 0.0, 40.0, 50.0, [[50, 100, 150]], [90]),
])
def test_starts_worked_by_hand(pattern, dies, lead, t0, s, t_xfer, host, want_xs, want_prog):
    """The compiled recurrence on timings worked out by hand from its rules (003 §4.2)."""
    prog, xs = _starts_batch(pattern, dies, np.array([t0, t0]), np.array([s, s]), t_xfer, host, lead)
    assert np.array_equal(xs, np.array([want_xs, want_xs], dtype=float))
    assert np.array_equal(prog, np.array([want_prog, want_prog], dtype=float))


@settings(deadline=None, max_examples=25)
@given(st.sampled_from([(0, 1), (0, 0), (0, 1, 2, 3)]), st.sampled_from([None, 1]),
       st.sampled_from([(0.05, 0.01, 0.04), (0.0, -0.03, 0.05), (-0.05, 0.06, -0.01)]), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_grid_least_is_the_full_fits_least(pattern, lead, currents, with_host, seed):
    """A grid fitted only where a point can be its least gives the least of every point's
    bounded fit, at the same point, whatever the currents (most points' plain fit breaking a
    bound or none); each residual it gives is the full rule's."""
    rng = np.random.default_rng(seed)
    t_xfer, t_prog = 40.0, 700.0
    t, prog, xs = _grid(pattern, 2, lead, t_xfer, 0.0, rng, k=40)
    xf, on = grid_columns(t, prog, xs, t_xfer, t_prog, WIDTH, 2 * PROG_SPREAD * t_prog, lead != 1)
    busy_of = _ramps(t, np.array([[-6.0], [0.0], [6.0]]), WIDTH)[:, :, 0]
    host = _host_columns(t, np.array([0.0, 12.0]), 4, 30.0, WIDTH) if with_host else np.empty((0, t.size))
    busy, xfer, prog_a = currents
    y = busy * busy_of[1] + xfer * xf[0] + prog_a * on[0] + rng.normal(0, 0.004, t.size)
    which_busy, which_starts = np.repeat(np.arange(3), 40), np.tile(np.arange(40), 3)
    gram, xty = normal_equations(busy_of, xf, on, host, y, which_busy, which_starts, np.arange(40) % 2)
    yy = float(y @ y)
    want = _fit_batch(gram, xty, yy)[1]
    got = _grid_rss(gram, xty, yy)
    assert np.argmin(got) == np.argmin(want) and got.min() == want.min()
    fitted = np.isfinite(got)
    assert np.array_equal(got[fitted], want[fitted])
