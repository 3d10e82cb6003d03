"""Random small drives under random request streams keep the FTL's books straight.

The oracle is the request stream itself (which logical pages must hold data) and
counting: every program is a host page or a GC copy, every pulse belongs to a die,
every unit's valid count is what the reverse map says.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from charz.sim.ftl import KIND_ERASE, KIND_PROGRAM, KIND_READ, OP_TRIM, OP_WRITE, FtlConfig, SimDrive, requests

pytestmark = pytest.mark.unit


@st.composite
def cases(draw):
    planes = draw(st.integers(1, 4))
    cfg = FtlConfig(channels=draw(st.integers(1, 3)), chips_per_channel=draw(st.integers(1, 2)),
                    dies_per_chip=draw(st.integers(1, 2)), planes=planes,
                    blocks_per_plane=draw(st.integers(24, 48)), pages_per_block=draw(st.sampled_from([4, 8, 16])),
                    page_size=draw(st.sampled_from([2048, 4096, 16384])),
                    over_provisioning=draw(st.floats(0.3, 1.0)), gc=draw(st.sampled_from(["greedy", "cost-benefit"])),
                    multi_plane=draw(st.booleans()), lines=draw(st.booleans()), write_cache=draw(st.booleans()),
                    write_cache_bytes=draw(st.sampled_from([32768, 262144])), cell=draw(st.sampled_from(["MLC", "SLC"])),
                    seed=draw(st.integers(0, 9)), trace_dies=(0,))
    return cfg, draw(st.integers(0, 2**32 - 1)), draw(st.floats(0.0, 1.0))


# Derandomized: CI always sees the same drives; --hypothesis-seed=random explores others.
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_books_balance(case):
    cfg, seed, fill = case
    drive = SimDrive(cfg)
    ps = cfg.page_size
    drive.precondition(fill)
    filled = int(drive.user_bytes * fill) // 512 * 512  # bytes the fill wrote from offset 0
    mapped = np.zeros(cfg.user_pages, bool)
    mapped[: -(-filled // ps)] = True
    rng = np.random.default_rng(seed)
    for _ in range(2):
        n = 3000
        ops = rng.choice([0, 1, 1, 1, 2], size=n).astype(np.uint8)
        lengths = rng.integers(1, 5 * ps // 512, size=n) * 512
        offsets = rng.integers(0, (drive.user_bytes - lengths) // 512 + 1) * 512
        reqs = requests(ops, offsets, lengths)
        res = drive.run(reqs)
        for op, off, ln in zip(ops, offsets, lengths):
            if op == OP_WRITE:
                mapped[off // ps:(off + ln - 1) // ps + 1] = True
            elif op == OP_TRIM:
                mapped[-(-off // ps):(off + ln) // ps] = False
        l2p, p2l = np.asarray(drive.l2p), np.asarray(drive.p2l)
        assert np.array_equal(l2p >= 0, mapped)
        lpns = np.flatnonzero(mapped)
        assert np.array_equal(p2l[l2p[lpns]], lpns)
        assert (p2l >= 0).sum() == len(lpns)
        valid = drive.valid_per_unit
        assert np.array_equal(np.bincount(np.flatnonzero(p2l >= 0) // drive.pages_per_unit, minlength=len(valid)),
                              valid)
        assert (valid <= drive.pages_per_unit).all()
        # counts: host bytes are the requests', programs are host pages or GC copies, all under some pulse
        assert res.host_bytes_written == int(lengths[ops == OP_WRITE].sum())
        assert res.host_bytes_read == int(lengths[ops == 0].sum())
        assert res.die_pages_programmed.sum() == res.flash_pages_programmed
        assert res.die_erases.sum() == res.erases and res.die_reads.sum() == res.flash_pages_read
        assert res.host_pages_programmed + res.coalesced_pages <= res.host_pages_written
        if not cfg.write_cache:
            assert res.host_pages_programmed == res.host_pages_written
            assert res.true_wa >= 1.0
        tr = res.rb_trace(0)
        assert (tr.kind == KIND_PROGRAM).sum() == res.die_program_ops[0]
        assert (tr.kind == KIND_READ).sum() == res.die_reads[0]
        assert (tr.kind == KIND_ERASE).sum() == res.die_erases[0]
        assert (tr.start_us[1:] >= tr.start_us[:-1] + tr.width_us[:-1]).all()
        if cfg.lines:  # each frontier (host, GC) walks the dies in turn: ≤ 1 pulse apart each
            assert res.die_program_ops.max() - res.die_program_ops.min() <= 2
            assert (res.die_erases == res.die_erases[0]).all()
