"""The real fio: the one-request probe and the job files in workloads/, parsed."""

from __future__ import annotations

import pytest
from conftest_device import MIB, LoopDevice, need_root, need_tools

from charz.device import SubprocessRunner, claim_target
from charz.errors import UnsafeTarget, WorkloadError
from charz.workload import jobfile_path, open_direct, run_jobfile, run_probe

pytestmark = pytest.mark.system

RUNNER = SubprocessRunner()


@pytest.fixture(autouse=True)
def _fio():
    need_tools("fio")


@pytest.fixture
def scratch(tmp_path):
    path = tmp_path / "scratch.dat"
    try:
        open_direct(path, create_size_bytes=4 * MIB).close()
    except WorkloadError as exc:
        pytest.skip(f"the temp directory's file system refuses O_DIRECT: {exc}")
    return path


def test_probe_write_is_one_request(scratch):
    job = run_probe(scratch, size_bytes=20480, offset_bytes=MIB, runner=RUNNER)
    assert (job.write.total_ios, job.write.io_bytes, job.read.total_ios) == (1, 20480, 0)
    assert job.option("offset") == str(MIB) and job.option("direct") == "1"
    assert job.write.single_io_latency_ns() > 0
    with pytest.raises(WorkloadError, match="meaningless"):
        job.write.throughput_bytes_per_s()


def test_probe_read(scratch):
    job = run_probe(scratch, size_bytes=8192, offset_bytes=0, op="read", runner=RUNNER)
    assert job.read.total_ios == 1 and job.write.total_ios == 0


def test_probe_failure_is_a_workload_error(scratch):
    with pytest.raises(WorkloadError, match="exited with status"):
        run_probe(scratch, size_bytes=1000, offset_bytes=0, runner=RUNNER)   # not a sector multiple


def test_probe_write_job_file(scratch):
    report = run_jobfile(jobfile_path("probe-write.fio"), target=scratch,
                         env={"SIZE": "32768", "OFFSET": str(2 * MIB)}, runner=RUNNER)
    job, = report.jobs
    assert (job.name, job.write.total_ios, job.write.io_bytes) == ("probe", 1, 32768)


def test_job_file_without_its_variables_fails_clearly(scratch):
    with pytest.raises(WorkloadError, match=r"failed parsing"):
        run_jobfile(jobfile_path("probe-write.fio"), target=scratch, runner=RUNNER)


def test_recsize_sweep_job_file(tmp_path):
    report = run_jobfile(jobfile_path("recsize-sweep.fio"), target=tmp_path / "recsize.dat",
                         env={"SWEEP_SIZE": "2m"}, runner=RUNNER)
    assert [(j.name, j.groupid, j.write.io_bytes) for j in report.jobs] == [
        (f"bs{k}k", i, 2 * MIB) for i, k in enumerate((4, 8, 16, 32, 64))]
    assert [j.write.total_ios for j in report.jobs] == [512, 256, 128, 64, 32]


def test_precondition_job_file(tmp_path):
    target = tmp_path / "fill.dat"
    report = run_jobfile(jobfile_path("precondition.fio"), target=target, env={"FILL_SIZE": "3m"},
                         runner=RUNNER)
    assert report.jobs[0].write.io_bytes == 3 * MIB and target.stat().st_size == 3 * MIB


@pytest.mark.root
def test_probe_on_a_held_loop_device(tmp_path):
    # research/ssdprobe.md inferred that fio's plain open works while charz holds O_EXCL
    need_root()
    need_tools("losetup", "wipefs")
    loop = LoopDevice(tmp_path)
    try:
        with pytest.raises(UnsafeTarget):
            run_probe(loop.path, size_bytes=4096, offset_bytes=0, runner=RUNNER)
        with claim_target(loop.path, output_dir=tmp_path / "out", runner=RUNNER) as hold:
            job = run_probe(loop.path, size_bytes=20480, offset_bytes=MIB, runner=RUNNER, claim=hold)
            assert job.write.total_ios == 1
    finally:
        loop.close()
