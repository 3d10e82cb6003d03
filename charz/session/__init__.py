"""A characterization session: plan, bench, capture loop, resume.

Plan (``_plan``)
    build_sweep, SweepPlan, Step       the sweep as data (fresh LBAs, fill before reads)
    parse_size, parse_sizes            "4k", "4k:160k:4k,512k"
    default_write_sizes, default_read_sizes
Bench (``_bench``)
    RealBench, MockBench               what to rebuild the bench from (stored in the archive)
    BenchConfig, bench_from_dict       either of them; read back from an archive
    Bench, open_bench                  scope + O_DIRECT target (+ the mock's physics link)
Scope set-up (``_autoset``)
    autoset, idle_stats, scale_for_peak, trigger_level, round_scale_up
Capture loop (``_run``)
    Runner, judge, RunStats
Requests (``_request``)
    CharacterizeRequest, ResumeRequest built and checked from plain values (the CLI's options)
Session (``_session``)
    start_session, resume_session, DeviceOptions, SessionUI, SessionResult, SCRATCH_NAME
"""

from charz.session._bench import Bench, BenchConfig, MockBench, RealBench, bench_from_dict, open_bench
from charz.session._plan import (
    Step,
    SweepPlan,
    build_sweep,
    default_read_sizes,
    default_write_sizes,
    parse_size,
    parse_sizes,
)
from charz.session._request import CharacterizeRequest, ResumeRequest
from charz.session._session import SCRATCH_NAME, DeviceOptions, captures_kept, SessionResult, SessionUI, resume_session, start_session

__all__ = [
    "SCRATCH_NAME", "Bench", "BenchConfig", "CharacterizeRequest", "DeviceOptions", "MockBench", "RealBench", "ResumeRequest", "bench_from_dict", "SessionResult", "SessionUI", "Step", "SweepPlan", "build_sweep", "captures_kept",
    "default_read_sizes", "default_write_sizes", "open_bench", "parse_size", "parse_sizes", "resume_session",
    "start_session",
]
