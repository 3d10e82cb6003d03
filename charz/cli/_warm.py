"""Compile every numba kernel of charz at once, the first time any of them compiles.

numba compiles a kernel at its first use after an install and caches it (``cache=True``).
charz has two paths with kernels of their own: a characterization (the analysis's window
kernel for 8- and 16-bit codes, the simulated drive's renderer) and a WA run (the
simulated FTL, the R/B pulse counter).  Compiled only when used, the first ``wa run`` after
a first ``characterize`` sat another 20–30 s compiling.  So when a command has just
compiled one (a fresh install), ``main()`` runs each of the others once on a few samples
through the same functions the commands call (the same argument types, hence the same
cached machine code): one wait after an install instead of one per path.  Kernels
already cached load in a fraction of a second and are not compiled again.
``benchmarks/first_run.py`` measures; README gives the times.
"""

from __future__ import annotations


def warm_kernels() -> None:
    """Run each of charz's compiled kernels once on tiny inputs (compiling those not cached)."""
    import numpy as np  # lazy: numpy

    from charz.analysis import measure_window, unit_rise  # lazy: numba, numpy, scipy
    from charz.analysis import PulseCounter, count_pulses  # lazy: numba, numpy, scipy

    # the window kernel: one machine code per sample type the scopes send (8- and 16-bit)
    for dtype in (np.int8, np.int16):
        codes = np.zeros((2, 600), dtype=dtype)
        codes[:, 300:360] = 40
        measure_window(codes, y_mult=1e-3, y_offset_codes=0, y_zero=0.0, sample_interval_s=2e-6, t_first_s=-6e-4)
    # the rise's grid of fits: a one-unit write of two packages, 30 µs apart, drawn by hand
    # (with numbers charz's source holds already: Hypothesis draws the property tests' drives
    # partly from the constants in charz's modules, so new ones here would change the drives)
    tu = np.arange(-50, 600) * 2.0
    w = 0.05 * ((tu > 20) & (tu < 1000)) + 0.04 * ((tu > 100) & (tu < 900.0)) + 0.04 * ((tu > 130) & (tu < 1000))
    unit_rise(np.tile(w, (3, 1)), tu * 1e-6, np.full(3, 0.001), unit_pages=2, page_size_bytes=8192, channels=2,
              packages=4, t_xfer_page_us=50.0, t_prog_us=900.0)
    # the R/B pulse counter: on arrays, and on sigrok's stream (read-only views of its bytes,
    # which numba compiles apart)
    line = np.ones(4000, dtype=np.uint8)
    line[1000:1400] = 0
    count_pulses(line, 1e6)
    counter = PulseCounter(1e6)
    counter.feed(np.frombuffer(line.tobytes(), np.uint8))
    # the simulated SSD's renderer and the simulated FTL: the mock bench's and wa run --mock's
    from charz.sim import load_preset, mock_config
    from charz.sim import SimulatedSSD  # lazy: numba, numpy, pyvisa, scipy, the simulator
    from charz.sim.ftl import SimDrive  # lazy: numba, numpy, pyvisa, scipy, the simulator

    ssd = SimulatedSSD(load_preset("mxp"))
    rng = np.random.default_rng(0)
    ssd.render(ssd.request("write", 32768, 0, rng), -1e-3, 2e-6, 2000, rng)
    SimDrive(mock_config()).precondition(0.01)
