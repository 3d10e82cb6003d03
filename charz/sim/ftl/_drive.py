"""The simulated drive: configuration, state between runs, per-run results and R/B traces.

Conventions (docs/ftl.md has the rest):

* ``over_provisioning`` is spare/user, ρ = (T − U)/U, as drive vendors quote it;
  ``spare_factor`` is spare/physical, S_f = (T − U)/T, the form Dayan's and
  Desnoyers' closed forms (002 Eq. 3) take.  T = physical pages, U = user pages
  = ⌊T/(1 + ρ)⌋.
* WA is in bytes, as 000 Eq. 10: flash pages programmed × page size / host bytes
  written — so a 4 KiB write to a 16 KiB page costs at least 4.
* Time in a trace is µs on one die's own clock, continuous over the drive's runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from charz.sim.ftl import _kernel as K
from charz.sim.ftl._cdm import CacheState
from charz.sim.ftl._wolf import WolfState
from charz.sim.ftl._workload import OP_TRIM, REQUEST_DTYPE, Workload, make_fill, make_requests

# Pulse widths in µs, drawn uniformly.  Programs lie inside 000 Table 2's windows
# (MLC 200–2200, SLC 200–500) with margin; MLC lower pages are fast, upper slow.
# Reads are tens of µs and erases milliseconds, outside every program window.
_TIMING = {
    "MLC": dict(prog_lower_us=(250.0, 900.0), prog_upper_us=(1100.0, 2150.0), read_us=(25.0, 75.0),
                erase_us=(2500.0, 3800.0)),
    "SLC": dict(prog_lower_us=(220.0, 480.0), prog_upper_us=(220.0, 480.0), read_us=(20.0, 30.0),
                erase_us=(1500.0, 2500.0)),
}
_GC = {"greedy": K.GC_GREEDY, "cost-benefit": K.GC_COST_BENEFIT}
# block managers: the plain one, Wolf (002 §5, _wolf.py), an NVM cache without (004's
# NVM-basic) and with Cooperative Data Management (004 §III, _cdm.py)
POLICIES = ("plain", "wolf", "nvm", "cdm")
_INITIAL_TRACE = 1 << 16


@dataclass(frozen=True)
class FtlConfig:
    """Geometry, policy and timing of one simulated drive.  Timing fields left ``None``
    take the cell type's defaults (``_TIMING``)."""

    channels: int = 2
    chips_per_channel: int = 2
    dies_per_chip: int = 1
    planes: int = 2
    blocks_per_plane: int = 256
    pages_per_block: int = 128
    page_size: int = 16384
    over_provisioning: float = 0.07  # spare / user (ρ); see spare_factor for spare / physical
    gc: str = "greedy"
    multi_plane: bool = True
    lines: bool = False  # GC units span every die (FEMU/pblk lines) instead of one die or plane
    write_cache: bool = False
    write_cache_bytes: int = 32 << 20
    cell: str = "MLC"
    seed: int = 0
    trace_dies: tuple[int, ...] = (0,)
    prog_lower_us: tuple[float, float] | None = None
    prog_upper_us: tuple[float, float] | None = None
    read_us: tuple[float, float] | None = None
    erase_us: tuple[float, float] | None = None
    gap_us: float = 20.0  # command + data transfer before each operation of a die
    run_gap_us: float = 1000.0  # idle between consecutive runs on a die's clock
    policy: str = "plain"  # one of POLICIES
    wolf_groups: int = 2  # Wolf: groups by update frequency (1: the plain greedy manager)
    wolf_interval: float = 0.001  # Wolf: statistics interval, fraction of the user pages (002: 0.001)
    wolf_movement: bool = True  # Wolf: movement operations (False: greedy across groups)
    # Wolf's groups run as 002 §5 describes FDP (Stoica & Ailamaki): fixed group order, each
    # group presumed as hot as its rank, least-recently-cleaned victims within a group
    wolf_fdp: bool = False
    # Wolf: > 0 lets it create and merge groups (002 §5.2) between 2 and this many,
    # starting from wolf_groups; 0 keeps wolf_groups fixed
    wolf_max_groups: int = 0
    nvm_cache_bytes: int = 0  # nvm / cdm: the NVM cache (0: none, the plain FTL)

    def __post_init__(self) -> None:
        for name in ("channels", "chips_per_channel", "dies_per_chip", "planes", "blocks_per_plane",
                     "pages_per_block", "page_size"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v <= 0:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if self.page_size % 512:
            raise ValueError(f"page_size must be a multiple of 512 B, got {self.page_size}")
        if self.cell not in _TIMING:
            raise ValueError(f"cell must be one of {sorted(_TIMING)}, got {self.cell!r}")
        if self.gc not in _GC:
            raise ValueError(f"gc must be one of {sorted(_GC)}, got {self.gc!r}")

        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if self.policy != "plain" and self.write_cache:
            raise ValueError(f"policy {self.policy!r} runs without the FIFO write_cache (nvm/cdm bring their own)")
        if self.policy == "wolf" and (self.gc != "greedy" or not 1 <= self.wolf_groups <= 16):
            raise ValueError(f"wolf cleans greedily with 1–16 groups, got gc={self.gc!r}, groups={self.wolf_groups}")
        if self.wolf_max_groups and (self.policy != "wolf" or self.wolf_fdp
                                     or not 2 <= self.wolf_groups <= self.wolf_max_groups <= 16):
            raise ValueError("wolf_max_groups lets Wolf (not FDP) create and merge groups: policy='wolf', "
                             f"2 ≤ wolf_groups ≤ wolf_max_groups ≤ 16, got {self.wolf_groups}, {self.wolf_max_groups}")
        if self.wolf_fdp and (self.policy != "wolf" or not self.wolf_movement):
            raise ValueError("wolf_fdp is a variant of policy 'wolf' with its space shares kept: "
                             "policy='wolf', wolf_movement=True")
        if not 0.0 < self.wolf_interval <= 1.0:
            raise ValueError(f"wolf_interval must be in (0, 1], got {self.wolf_interval}")
        if self.nvm_cache_bytes < 0 or self.nvm_cache_bytes % self.page_size:
            raise ValueError(f"nvm_cache_bytes must be a multiple of the page ({self.page_size} B), "
                             f"got {self.nvm_cache_bytes}")
        if not (self.over_provisioning > 0 and math.isfinite(self.over_provisioning)):
            raise ValueError(f"over_provisioning (spare/user) must be > 0, got {self.over_provisioning}")
        if self.physical_pages >= 2**31 - 1:
            raise ValueError(f"{self.physical_pages} physical pages: the map holds at most 2^31 − 2")
        for name in ("gap_us", "run_gap_us"):
            v = getattr(self, name)
            if not (v >= 0 and math.isfinite(v)):
                raise ValueError(f"{name} must be ≥ 0 µs, got {v}")
        if self.write_cache and self.write_cache_bytes < self.page_size:
            raise ValueError(f"write_cache_bytes {self.write_cache_bytes} is below one page ({self.page_size} B)")
        for d in self.trace_dies:
            if not 0 <= d < self.dies:
                raise ValueError(f"trace die {d} is not one of the {self.dies} dies")
        t = self.timing
        for name in ("prog_lower_us", "prog_upper_us", "read_us", "erase_us"):
            a, b = t[name]
            if not 0 < a <= b:
                raise ValueError(f"{name} must be (a, b) with 0 < a ≤ b, got {(a, b)}")
        # the GC frontier needs a reserve unit, both frontiers an open one, and GC a victim
        per_pool_spare = (self.physical_pages - self.user_pages) / self.pools
        # Wolf: two open units and a victim per group, and a reserve of two
        need = 2 * self.wolf_slots + 2 if self.policy == "wolf" and self.wolf_slots > 1 else 4
        if per_pool_spare < need * self.pages_per_unit:
            raise ValueError(
                f"over-provisioning leaves {per_pool_spare:.0f} spare pages per GC pool; the FTL needs at least "
                f"{need} units ({need * self.pages_per_unit} pages): raise over_provisioning or blocks_per_plane")

    @classmethod
    def ssd_v(cls, blocks_per_plane: int = 4096, **kw) -> FtlConfig:
        """000 Table 2's SSD-v, the in-house drive RB-Explorer was validated on: 4 channels
        × 1 chip × 1 die × 2 planes, single-plane programs, 4 KiB MLC pages, 16 GB of
        flash with 14.0 GB for the user (ρ = 2/14), a 32 KB cache, cost-benefit GC.
        Assumed (not in the table): 128 pages per block, so the default 4096 blocks per
        plane make 16 GiB; fewer blocks give a smaller drive of the same shape."""
        base = dict(channels=4, chips_per_channel=1, dies_per_chip=1, planes=2, blocks_per_plane=blocks_per_plane,
                    pages_per_block=128, page_size=4096, over_provisioning=2.0 / 14.0, gc="cost-benefit",
                    multi_plane=False, write_cache=True, write_cache_bytes=32 * 1024, cell="MLC")
        return cls(**{**base, **kw})

    @classmethod
    def with_spare_factor(cls, spare_factor: float, **kw) -> FtlConfig:
        """A config whose S_f = spare/physical is ``spare_factor`` (ρ = S_f/(1 − S_f))."""
        if not 0.0 < spare_factor < 1.0:
            raise ValueError(f"spare_factor must be in (0, 1), got {spare_factor}")
        return cls(over_provisioning=spare_factor / (1.0 - spare_factor), **kw)

    @property
    def wolf_slots(self) -> int:
        """Wolf's group slots: the most groups it can hold at once."""
        return max(self.wolf_groups, self.wolf_max_groups)

    @property
    def dies(self) -> int:
        return self.channels * self.chips_per_channel * self.dies_per_chip

    @property
    def physical_pages(self) -> int:
        return self.dies * self.planes * self.blocks_per_plane * self.pages_per_block

    @property
    def user_pages(self) -> int:
        return int(self.physical_pages / (1.0 + self.over_provisioning))

    @property
    def spare_factor(self) -> float:
        """S_f = spare/physical of the full user space."""
        return (self.physical_pages - self.user_pages) / self.physical_pages

    @property
    def pages_per_program(self) -> int:
        """M_p: pages under one program pulse."""
        return self.planes if self.multi_plane else 1

    @property
    def pools(self) -> int:
        """Garbage-collection domains: the drive (lines), each die (multi-plane) or each plane."""
        if self.lines:
            return 1
        return self.dies if self.multi_plane else self.dies * self.planes

    @property
    def pages_per_unit(self) -> int:
        """Pages of one erase unit: a block, a die's superblock, or a line over every die."""
        if self.lines:
            return self.pages_per_block * self.planes * self.dies
        return self.pages_per_block * self.pages_per_program

    @property
    def units_per_pool(self) -> int:
        return self.blocks_per_plane

    @property
    def timing(self) -> dict[str, tuple[float, float]]:
        base = _TIMING[self.cell]
        return {k: tuple(getattr(self, k) or base[k]) for k in base}


class RbTrace(NamedTuple):
    """One die's R/B low pulses in time order: start and width in µs, kind 0 read,
    1 program, 2 erase."""

    start_us: np.ndarray
    width_us: np.ndarray
    kind: np.ndarray


@dataclass
class RunResult:
    """What one :meth:`SimDrive.run` did.  Host figures are the requests'; flash figures
    include work a carried precondition left (``initial_bytes_written``)."""

    page_size: int
    pages_per_program: int
    host_bytes_written: int
    host_bytes_read: int
    host_pages_written: int
    host_pages_programmed: int
    gc_copies: int
    erases: int
    flash_pages_read: int  # all flash page reads: host, read-modify-write, GC copies
    host_flash_reads: int  # host reads served from flash (not from the write cache)
    rmw_reads: int
    coalesced_pages: int
    cache_read_hits: int
    trimmed_pages: int
    program_ops: int
    die_program_ops: np.ndarray  # per die: R/B program pulses
    die_pages_programmed: np.ndarray
    die_reads: np.ndarray
    die_erases: np.ndarray
    start_us: np.ndarray  # per die: its clock when the run began (kept only for traced dies)
    end_us: np.ndarray  # per die: its clock when it went idle (kept only for traced dies)
    initial_bytes_written: int = 0
    traced_dies: tuple[int, ...] = ()
    # nvm / cdm: gc_removed (removable pages GC dropped instead of copying), early_invalid
    # (flash copies invalidated when their page turned dirty in the cache), dirty_evicts,
    # clean_drops, read_fills
    policy_counts: dict[str, int] = field(default_factory=dict)
    _traces: dict[int, RbTrace] = field(default_factory=dict, repr=False)

    @property
    def dies(self) -> int:
        return len(self.die_program_ops)

    @property
    def flash_pages_programmed(self) -> int:
        return self.host_pages_programmed + self.gc_copies

    @property
    def flash_bytes_programmed(self) -> int:
        return self.flash_pages_programmed * self.page_size

    @property
    def true_wa(self) -> float:
        """Flash bytes programmed / host bytes written (000 Eq. 10); nan without writes."""
        if self.host_bytes_written == 0:
            return math.nan
        return self.flash_bytes_programmed / self.host_bytes_written

    def rb_trace(self, die: int = 0) -> RbTrace:
        if die not in self.traced_dies:
            raise ValueError(f"die {die} was not traced (FtlConfig.trace_dies = {self.traced_dies})")
        return self._traces[die]

    def _absorb_flash(self, other: RunResult) -> None:
        """Add ``other``'s flash work (not its host figures): 000 Fig. 10's first sub-test
        carries the initial data the drive writes as the workload starts."""
        for name in ("gc_copies", "erases", "flash_pages_read", "host_flash_reads", "rmw_reads", "program_ops"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.host_pages_programmed += other.host_pages_programmed
        for k, v in other.policy_counts.items():
            self.policy_counts[k] = self.policy_counts.get(k, 0) + v
        self.initial_bytes_written += other.host_bytes_written
        for name in ("die_program_ops", "die_pages_programmed", "die_reads", "die_erases"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.start_us = np.minimum(self.start_us, other.start_us)
        self._traces = {d: RbTrace(*(np.concatenate([a, b]) for a, b in zip(other._traces[d], t)))
                        for d, t in self._traces.items()}


class SimDrive:
    """A page-mapped FTL over ``cfg``'s geometry, fresh (all erased) at construction.

    State persists between :meth:`run` calls, so sub-tests are consecutive runs."""

    def __init__(self, cfg: FtlConfig):
        self.cfg = cfg
        t = cfg.physical_pages
        self._max_user_pages = cfg.user_pages
        self._user_pages = cfg.user_pages
        n_units = cfg.pools * cfg.units_per_pool
        self._l2p = np.full(self._max_user_pages, -1, dtype=np.int32)
        self._p2l = np.full(t, -1, dtype=np.int32)
        self._ut = np.zeros((n_units, K.N_U), dtype=np.int64)
        # free units popped from the top: reversed so a pool starts from its unit 0
        per = cfg.units_per_pool
        self._fstack = (np.arange(cfg.pools, dtype=np.int64)[:, None] * per
                        + np.arange(per - 1, -1, -1, dtype=np.int64)[None, :])
        self._pt = np.zeros((cfg.pools, K.N_Q), dtype=np.int64)
        self._pt[:, K.Q_FREE_TOP] = per
        self._pt[:, K.Q_OPEN_H] = self._pt[:, K.Q_OPEN_G] = -1
        self._pt[:, K.Q_MIN] = cfg.pages_per_unit
        self._bhead = np.full((cfg.pools, cfg.pages_per_unit + 1), -1, dtype=np.int64)
        self._pers = np.zeros(K.N_P, dtype=np.int64)
        cap = cfg.write_cache_bytes // cfg.page_size if cfg.write_cache else 0
        self._cache_ring = np.zeros(max(cap, 1), dtype=np.int32)
        self._cache_slot = np.zeros(self._max_user_pages if cap else 1, dtype=np.int32)
        self._traced = np.zeros(cfg.dies, dtype=np.uint8)
        self._traced[list(cfg.trace_dies)] = 1
        self._clocks = np.zeros(cfg.dies, dtype=np.float64)
        tm = cfg.timing
        ranges = np.zeros((5, 2))  # by trace code: read, -, program lower, program upper, erase
        ranges[K.CODE_READ], ranges[K.CODE_ERASE] = tm["read_us"], tm["erase_us"]
        ranges[K.CODE_PROG_LOWER], ranges[K.CODE_PROG_UPPER] = tm["prog_lower_us"], tm["prog_upper_us"]
        self._w_lo, self._w_span = ranges[:, 0].copy(), ranges[:, 1] - ranges[:, 0]
        self._g = np.zeros(K.N_G, dtype=np.int64)
        g = self._g
        g[K.G_DIES] = cfg.dies
        g[K.G_PPD] = 1 if cfg.multi_plane or cfg.lines else cfg.planes
        g[K.G_DPP] = cfg.dies if cfg.lines else 1
        g[K.G_CPR] = g[K.G_EPU] = cfg.planes // cfg.pages_per_program if cfg.lines else 1
        g[K.G_UPP] = cfg.pages_per_unit
        g[K.G_PPO] = cfg.pages_per_program
        g[K.G_NPOOLS] = cfg.pools
        g[K.G_UNITS_PER_POOL] = per
        g[K.G_PAGE_SIZE] = cfg.page_size
        g[K.G_USER_PAGES] = self._user_pages
        g[K.G_GC] = _GC[cfg.gc]
        g[K.G_CACHE_CAP] = cap
        g[K.G_RESERVE] = 1
        self._policy = None
        if cfg.policy == "wolf":
            self._policy = WolfState(cfg, g, self._max_user_pages)
            # one GC may open a unit in the victim's group and in the next colder one
            g[K.G_RESERVE] = self._policy.gw[K.G_RESERVE] = 1 if cfg.wolf_slots == 1 else 2
        elif cfg.policy in ("nvm", "cdm"):
            self._policy = CacheState(cfg.nvm_cache_bytes // cfg.page_size, cfg.policy == "cdm",
                                      self._max_user_pages)
        self._runs = 0
        # lifetime counters, as a drive's SMART log keeps them: never reset, every run counted once
        self._life = {"host_bytes_written": 0, "host_pages_programmed": 0, "gc_pages_programmed": 0}
        self._carry: RunResult | None = None
        self._broken: str | None = None

    # ---- geometry as seen by the host -------------------------------------------------
    @property
    def user_bytes(self) -> int:
        return self._user_pages * self.cfg.page_size

    @property
    def physical_bytes(self) -> int:
        return self.cfg.physical_pages * self.cfg.page_size

    @property
    def spare_factor(self) -> float:
        """S_f = (T − U)/T with the current user space."""
        t = self.cfg.physical_pages
        return (t - self._user_pages) / t

    @property
    def over_provisioning(self) -> float:
        """ρ = (T − U)/U with the current user space."""
        return (self.cfg.physical_pages - self._user_pages) / self._user_pages

    def set_oracle(self, rates) -> None:
        """Wolf / FDP: tell the temperature detector each logical page's true update rate
        (writes per host page write, one per page of the user space), as 002's evaluation
        does; None goes back to the estimate from each page's last two writes."""
        if not isinstance(self._policy, WolfState):
            raise ValueError("an oracle is for Wolf's temperature detector: policy='wolf'")
        if rates is not None:
            r = np.asarray(rates, dtype=np.float64)
            if r.shape != (self._user_pages,):
                raise ValueError(f"an oracle gives one rate per logical page ({self._user_pages}), got {r.shape}")
            rates = np.concatenate([r, np.zeros(self._max_user_pages - self._user_pages)])
        self._policy.set_oracle(rates)

    def set_user_space(self, user_bytes: int) -> None:
        """Shrink (or restore) the user space, as a partition does in 000 Table 4: pages
        beyond it are trimmed (the drive may reclaim them) and no request may reach them."""
        ps = self.cfg.page_size
        if user_bytes % ps or not 0 < user_bytes <= self._max_user_pages * ps:
            raise ValueError(f"user space must be a positive multiple of the page ({ps} B) up to "
                             f"{self._max_user_pages * ps} B, got {user_bytes}")
        new = user_bytes // ps
        if new < self._user_pages:
            carry, self._carry = self._carry, None  # a pending precondition belongs to the next real run
            self.run(np.array([(OP_TRIM, new * ps, (self._user_pages - new) * ps)], dtype=REQUEST_DTYPE),
                     idle_before_us=0.0)
            self._carry = carry
        self._user_pages = new
        self._g[K.G_USER_PAGES] = new

    @property
    def lifetime_counters(self) -> dict[str, int]:
        """Since the drive was made: host bytes written, pages programmed with host data, pages
        programmed by garbage collection — exact; ``charz.sim._smart`` rounds them to a real
        drive's SMART units."""
        return dict(self._life)

    # ---- state for tests and reports ------------------------------------------------
    @property
    def l2p(self) -> np.ndarray:
        """Logical page → physical page (−1 unmapped); read-only view."""
        v = self._l2p.view()
        v.flags.writeable = False
        return v

    @property
    def p2l(self) -> np.ndarray:
        """Physical page → logical page (−1 free or invalid); read-only view."""
        v = self._p2l.view()
        v.flags.writeable = False
        return v

    @property
    def valid_per_unit(self) -> np.ndarray:
        """Valid pages per erase unit (a superblock when programs are multi-plane); a copy."""
        return self._ut[:, K.U_VALID].copy()

    @property
    def erase_counts(self) -> np.ndarray:
        """Erases per unit so far; a copy."""
        return self._ut[:, K.U_ERASES].copy()

    @property
    def pages_per_unit(self) -> int:
        return self.cfg.pages_per_unit

    # ---- running --------------------------------------------------------------------
    def precondition(self, fraction: float = 1.0, block_size: int = 128 * 1024, carry: bool = False) -> RunResult:
        """Write the first ``fraction`` of the user space sequentially (initial data, 000
        §4.3).  With ``carry`` its flash work is also counted in the next run's result,
        as the paper's first sub-test counts the initial data (000 Fig. 10)."""
        res = self.run(make_fill(self.user_bytes, fraction, block_size))
        self._carry = res if carry else None
        return res

    def run(self, reqs: np.ndarray, idle_before_us: float | None = None) -> RunResult:
        """Serve ``reqs`` (``REQUEST_DTYPE``), then flush the write cache and any partial
        program stripe, so the counts are complete when the run returns.  Each die's
        clock first advances ``idle_before_us`` (default ``cfg.run_gap_us``, none before
        the drive's first run): R/B stays high that long."""
        if self._broken:
            raise RuntimeError(f"this drive stopped earlier: {self._broken}")
        reqs = self._checked(reqs)
        cfg = self.cfg
        if idle_before_us is None:
            idle_before_us = cfg.run_gap_us if self._runs > 0 else 0.0
        if not (idle_before_us >= 0 and math.isfinite(idle_before_us)):
            raise ValueError(f"idle_before_us must be ≥ 0, got {idle_before_us}")
        self._runs += 1
        ctr = np.zeros(K.N_C, dtype=np.int64)
        dc = np.zeros((cfg.dies, K.N_D), dtype=np.int64)
        self._clocks += idle_before_us
        start = self._clocks.copy()  # the dies' clocks advance as their traces are timed below
        # the kernel stops between requests once the buffer is half full, so half must hold
        # the most one request can do on a die: a GC burst (tens of units' copies at high
        # WA) and a cache flush; pulse codes are 3 bytes, so be generous
        cap = max(_INITIAL_TRACE, 2 * (64 * cfg.pages_per_unit + 2 * int(self._g[K.G_CACHE_CAP]) + 4096)) \
            if cfg.trace_dies else 2
        tr = [np.empty(cap, np.int16), np.empty(cap, np.uint8)]
        ops = np.ascontiguousarray(reqs["op"])
        offs = np.ascontiguousarray(reqs["offset"])
        lens = np.ascontiguousarray(reqs["length"])
        r = 0
        pol = self._policy
        cx0 = pol.cx.copy() if hasattr(pol, "cx") else None
        while r <= len(ops):
            state = (self._g, self._l2p, self._p2l, self._ut, self._pt, self._fstack, self._bhead, self._pers,
                     ctr, dc, self._traced)
            if pol is None:
                r = K.run_kernel(ops, offs, lens, r, True, self._cache_ring, self._cache_slot, *state, *tr)
            else:
                r = pol.run(ops, offs, lens, r, *state, *tr)
            if ctr[K.C_ERROR]:
                self._broken = {
                    K.ERR_NO_VICTIM: "no block holds an invalid page to reclaim: the over-provisioning is too "
                                     "small for this geometry",
                    K.ERR_NO_FREE: "garbage collection found no free block (FTL bug)",
                }[int(ctr[K.C_ERROR])]
                raise RuntimeError(f"simulated drive full after {r} of {len(ops)} requests: {self._broken}")
            if ctr[K.C_OVERFLOW]:
                self._broken = "the R/B trace buffer overflowed inside one request (FTL bug)"
                raise RuntimeError(self._broken)
            if r <= len(ops) and ctr[K.C_TRACE_N] > len(tr[1]) // 2:
                n = int(ctr[K.C_TRACE_N])
                tr = [np.concatenate([a[:n], np.empty(len(a) * 3, a.dtype)]) for a in tr]
        n = int(ctr[K.C_TRACE_N])
        traces = {d: self._timed(d, tr[1][:n][tr[0][:n] == d]) for d in cfg.trace_dies}
        res = RunResult(
            page_size=cfg.page_size, pages_per_program=cfg.pages_per_program,
            host_bytes_written=int(ctr[K.C_HOST_W_BYTES]), host_bytes_read=int(ctr[K.C_HOST_R_BYTES]),
            host_pages_written=int(ctr[K.C_HOST_PAGES_W]), host_pages_programmed=int(ctr[K.C_HOST_PROG]),
            gc_copies=int(ctr[K.C_GC_COPIES]), erases=int(ctr[K.C_ERASES]),
            flash_pages_read=int(ctr[K.C_FLASH_READS]), host_flash_reads=int(ctr[K.C_HOST_FLASH_READS]),
            rmw_reads=int(ctr[K.C_RMW_READS]),
            coalesced_pages=int(ctr[K.C_COALESCED]), cache_read_hits=int(ctr[K.C_CACHE_HITS]),
            trimmed_pages=int(ctr[K.C_TRIM_PAGES]), program_ops=int(ctr[K.C_PROG_OPS]),
            die_program_ops=dc[:, K.D_PROG_OPS].copy(), die_pages_programmed=dc[:, K.D_PROG_PAGES].copy(),
            die_reads=dc[:, K.D_READS].copy(), die_erases=dc[:, K.D_ERASES].copy(),
            start_us=start, end_us=self._clocks.copy(), traced_dies=tuple(cfg.trace_dies), _traces=traces,
            policy_counts={} if cx0 is None else dict(zip(
                ("gc_removed", "early_invalid", "dirty_evicts", "clean_drops", "read_fills"),
                (int(x) for x in pol.cx - cx0))))
        self._life["host_bytes_written"] += res.host_bytes_written
        self._life["host_pages_programmed"] += res.host_pages_programmed
        self._life["gc_pages_programmed"] += res.gc_copies
        if self._carry is not None:
            carried, self._carry = self._carry, None
            res._absorb_flash(carried)
        return res

    def _timed(self, die: int, codes: np.ndarray) -> RbTrace:
        """Widths and start times for one die's pulse codes, in order: each operation waits
        a gap of ``gap_us``…2·``gap_us`` (command, data transfer) after the previous one
        ends.  Drawn here, vectorised, from a stream seeded by (seed, run, die)."""
        rng = np.random.default_rng([self.cfg.seed, self._runs, die])
        u = rng.random((2, len(codes)))
        width = self._w_lo[codes] + self._w_span[codes] * u[0]
        gap = self.cfg.gap_us * (1.0 + u[1])
        end = self._clocks[die] + np.cumsum(gap + width)
        if len(codes):
            self._clocks[die] = end[-1]
        return RbTrace(end - width, width, (codes >> 1).astype(np.uint8))

    def _checked(self, reqs: np.ndarray) -> np.ndarray:
        if not isinstance(reqs, np.ndarray) or reqs.dtype.names is None or not {"op", "offset", "length"} <= set(
                reqs.dtype.names):
            raise TypeError("requests must be a structured array with fields op, offset, length (REQUEST_DTYPE)")
        reqs = reqs.astype(REQUEST_DTYPE, copy=False).ravel()
        if len(reqs) == 0:
            return reqs
        bad = ~np.isin(reqs["op"], (0, 1, 2))
        if bad.any():
            raise ValueError(f"request {int(np.argmax(bad))}: op must be 0 read, 1 write or 2 trim")
        bad = reqs["length"] <= 0
        if bad.any():
            raise ValueError(f"request {int(np.argmax(bad))}: length must be positive")
        bad = (reqs["offset"] < 0) | (reqs["offset"] + reqs["length"] > self.user_bytes)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"request {i} ({int(reqs['offset'][i])} + {int(reqs['length'][i])} B) lies outside "
                             f"the user space of {self.user_bytes} B")
        return reqs


def run_subtests(drive: SimDrive, workload: Workload, count: int, initial_fill: float | None = 1.0
                 ) -> list[RunResult]:
    """000 Fig. 10 (WALVD): ``count`` consecutive sub-tests of ``workload`` (seeds
    ``workload.seed + k``).  With ``initial_fill`` the drive is first filled that far and
    the fill's flash work counts in sub-test 1, which is why its WA is the highest."""
    if count <= 0:
        raise ValueError(f"count must be positive, got {count}")
    if initial_fill:
        drive.precondition(initial_fill, carry=True)
    return [drive.run(make_requests(replace(workload, seed=workload.seed + k), drive.user_bytes))
            for k in range(count)]


def op_percent_user_bytes(op_bytes: float, op_percent: float) -> float:
    """000 Eq. 15 solved for the partition: OP% = OP/(OP + User_Space), OP fixed."""
    if not 0.0 < op_percent < 100.0:
        raise ValueError(f"OP% must be in (0, 100), got {op_percent}")
    f = op_percent / 100.0
    return op_bytes * (1.0 - f) / f


def user_bytes_for_op_percent(drive: SimDrive, op_percent: float) -> int:
    """The partition of ``drive`` giving ``op_percent`` by 000 Eq. 15, OP being the
    drive's fixed spare (physical − full user space); rounded down to a page, at most
    the full user space."""
    ps = drive.cfg.page_size
    op_bytes = drive.physical_bytes - drive.cfg.user_pages * ps
    user = int(op_percent_user_bytes(op_bytes, op_percent)) // ps * ps
    return min(user, drive.cfg.user_pages * ps)
