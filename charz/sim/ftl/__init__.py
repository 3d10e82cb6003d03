"""A page-mapped FTL for the mock bench's write-amplification runs (issue 13).

Out-of-place writes, over-provisioning, greedy and cost-benefit garbage collection,
single- and multi-plane programs, TRIM, an optional write cache, read-modify-write
below the page; it keeps its true WA and emits chosen dies' R/B pulse trains.
``FtlConfig.policy`` puts the papers' block managers in instead: Wolf (002 §5,
``_wolf.py``) or an NVM cache with or without Cooperative Data Management (004 §III,
``_cdm.py``).  See docs/ftl.md for the model, its conventions and its limits.

=========================  ===================================================
``FtlConfig``              geometry, over-provisioning, policies, timing
``SimDrive``               the drive: ``precondition``, ``run``, ``set_user_space``
``RunResult``              one run's counts, ``true_wa``, ``rb_trace(die)``
``Workload``               000 Table 3 micro-benchmark parameters
``make_requests``          a workload → request array (op, offset, length)
``make_fill`` ``requests`` sequential fill; requests by hand (e.g. TRIM)
``table3``                 000 Table 3's forty micro-benchmarks as ``Workload``
``run_subtests``           000 Fig. 10's repeated sub-tests (WALVD)
``user_bytes_for_op_percent``  000 Eq. 15's partition for an OP% (Table 4)
``op_percent_user_bytes``  Eq. 15 itself, in bytes
=========================  ===================================================
"""

from charz.sim.ftl._drive import (
    FtlConfig,
    RbTrace,
    RunResult,
    SimDrive,
    op_percent_user_bytes,
    run_subtests,
    user_bytes_for_op_percent,
)
from charz.sim.ftl._kernel import KIND_ERASE, KIND_PROGRAM, KIND_READ
from charz.sim.ftl._workload import (
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    REQUEST_DTYPE,
    Workload,
    make_fill,
    make_requests,
    requests,
    table3,
)

__all__ = [
    "KIND_ERASE",
    "KIND_PROGRAM",
    "KIND_READ",
    "OP_READ",
    "OP_TRIM",
    "OP_WRITE",
    "REQUEST_DTYPE",
    "FtlConfig",
    "RbTrace",
    "RunResult",
    "SimDrive",
    "Workload",
    "make_fill",
    "make_requests",
    "op_percent_user_bytes",
    "requests",
    "run_subtests",
    "table3",
    "user_bytes_for_op_percent",
]
