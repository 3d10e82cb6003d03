"""The host side of a capture: one precise O_DIRECT request, or a fio job.

Catalogue
=========

One request (``_odirect``)
    open_direct            O_DIRECT descriptor + page-aligned buffer on a device or scratch file
    DirectIO               ``write(size, offset)`` / ``read(size, offset)``: one pwrite/preadv,
                           fresh random data per write, short I/O is an error
    IOResult               op, offset, size, monotonic start/end ns, wall-clock start

Fresh LBAs (``_lba``)
    FreshLbaAllocator      non-overlapping, unit-aligned offsets; raises when used up
    Extent

fio (``_fio``)
    probe_argv             the one-request command of research/ssdprobe.md §2
    jobfile_argv, jobfile_path, WORKLOADS_DIR     job files in ``workloads/``
    run_probe, run_jobfile run fio through a runner, parse its JSON
    parse_fio_json         → FioReport / FioJob / DirectionStats / LatencyStats

Sizes (``_sizes``)
    parse_size, parse_sizes    "4k" → 4096; "4k:16k:4k,64k" → a sorted list (k = KiB)

000 Table 3 (``_table3``)
    TABLE3_SIZES, table3_label   the micro-benchmarks' request sizes and names

The guard's proof (``_claim``)
    ExclusiveClaim         what a writer to a block device must be given (the device
                           layer's ExclusiveHold satisfies it; no import between the layers)
    require_claim_for_write

Writing a block device always needs the claim; scratch files on a file system do not.
"""

from charz.workload._claim import ExclusiveClaim, is_block_device, require_claim_for_write
from charz.workload._fio import (
    WORKLOADS_DIR,
    CommandRunner,
    DirectionStats,
    FioJob,
    FioReport,
    LatencyStats,
    jobfile_argv,
    jobfile_path,
    parse_fio_json,
    probe_argv,
    run_jobfile,
    run_probe,
)
from charz.workload._lba import Extent, FreshLbaAllocator
from charz.workload._odirect import DirectIO, IOResult, open_direct
from charz.workload._sizes import parse_size, parse_sizes
from charz.workload._table3 import TABLE3_SIZES, table3_label

__all__ = [
    "CommandRunner",
    "DirectIO",
    "DirectionStats",
    "ExclusiveClaim",
    "Extent",
    "FioJob",
    "FioReport",
    "FreshLbaAllocator",
    "IOResult",
    "LatencyStats",
    "TABLE3_SIZES",
    "WORKLOADS_DIR",
    "is_block_device",
    "jobfile_argv",
    "jobfile_path",
    "open_direct",
    "parse_fio_json",
    "parse_size",
    "parse_sizes",
    "probe_argv",
    "require_claim_for_write",
    "run_jobfile",
    "run_probe",
    "table3_label",
]
