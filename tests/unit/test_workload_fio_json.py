"""fio argument lists and JSON parsing (real fio 3.33 output), run through a replaying runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from charz.device.testing import Exchange, ReplayRunner, expected_commands
from charz.errors import UnsafeTarget, WorkloadError
from charz.workload import (
    WORKLOADS_DIR,
    jobfile_argv,
    jobfile_path,
    parse_fio_json,
    probe_argv,
    run_jobfile,
    run_probe,
)

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fio"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_probe_argv_is_the_verified_command():
    assert probe_argv("/dev/sdX", size_bytes=20480, offset_bytes=1048576) == (
        "fio", "--name=probe", "--filename=/dev/sdX", "--rw=write", "--bs=20480", "--size=20480",
        "--offset=1048576", "--direct=1", "--ioengine=psync", "--iodepth=1", "--numjobs=1",
        "--output-format=json")
    read = probe_argv(Path("/tmp/f"), size_bytes=4096, offset_bytes=0, op="read")
    assert "--rw=read" in read and read[-1] == "--readonly"


@pytest.mark.parametrize("kw, fragment", [
    (dict(size_bytes=0, offset_bytes=0), "size_bytes must be a positive int"),
    (dict(size_bytes=4096, offset_bytes=-1), "offset_bytes must be a non-negative int"),
    (dict(size_bytes="4k", offset_bytes=0), "size_bytes"),
    (dict(size_bytes=True, offset_bytes=0), "size_bytes"),
    (dict(size_bytes=4096, offset_bytes=0, op="trim"), "op must be"),
])
def test_probe_argv_checks_arguments(kw, fragment):
    with pytest.raises(WorkloadError, match=fragment):
        probe_argv("/tmp/f", **kw)


def test_jobfiles_exist_and_document_how_to_run_them():
    for name in ("probe-write.fio", "recsize-sweep.fio", "precondition.fio"):
        path = jobfile_path(name)
        text = path.read_text()
        assert text.startswith(f"; {name} -- "), "header comment says what it is for"
        assert f"fio --output-format=json {name}" in text, "and how to run it by hand"
        assert "${TARGET}" in text
    assert jobfile_argv(jobfile_path("probe-write.fio"))[:2] == ("fio", "--output-format=json")
    assert WORKLOADS_DIR.name == "workloads"
    with pytest.raises(WorkloadError, match="no job file"):
        jobfile_path("nope.fio")


def test_parse_single_write_probe():
    report = parse_fio_json(fixture("probe-write-20k.json"))
    assert report.fio_version == "fio-3.33" and report.timestamp_ms > 0
    job, = report.jobs
    assert (job.name, job.error, job.option("bs"), job.option("offset")) == ("probe", 0, "20480", "1048576")
    w = job.write
    assert (w.io_bytes, w.total_ios, w.clat.n) == (20480, 1, 1)
    assert w.single_io_latency_ns() == w.clat.min_ns == w.clat.max_ns
    assert w.slat.n == 0                       # not recorded for psync
    assert w.clat.percentiles_ns[0][0] == 1.0 and len(w.clat.percentiles_ns) == 17
    with pytest.raises(WorkloadError, match="meaningless for 1 I/O"):
        w.throughput_bytes_per_s()
    with pytest.raises(WorkloadError, match="exactly one I/O"):
        job.read.single_io_latency_ns()


def test_parse_read_probe():
    job, = parse_fio_json(fixture("probe-read-20k.json")).jobs
    assert job.read.total_ios == 1 and job.write.total_ios == 0
    assert job.read.single_io_latency_ns() > 0


def test_parse_recsize_sweep():
    report = parse_fio_json(fixture("recsize-sweep-4m.json"))
    assert [(j.name, j.groupid) for j in report.jobs] == [
        ("bs4k", 0), ("bs8k", 1), ("bs16k", 2), ("bs32k", 3), ("bs64k", 4)]
    assert [j.write.total_ios for j in report.jobs] == [1024, 512, 256, 128, 64]
    assert report.job("bs4k").write.io_bytes == 4 << 20
    with pytest.raises(WorkloadError, match="no job 'bs128k'"):
        report.job("bs128k")


def test_parse_skips_notes_printed_before_the_json():
    report = parse_fio_json(fixture("error-einval-stdout.txt"))
    assert report.jobs[0].error == 22


@pytest.mark.parametrize("text, fragment", [
    ("", "no JSON document"),
    ("fio: failed parsing offset=${OFFSET}\n", "no JSON document"),
    ("{", "malformed"),
    ('{"jobs": []}', "root has no 'fio version'"),
    ('{"fio version": "fio-3.33", "jobs": {}}', "'jobs' is not a list"),
    ('{"fio version": "x", "jobs": [{"jobname": "a"}]}', "jobs\\[0\\] has no 'read'"),
])
def test_parse_malformed(text, fragment):
    with pytest.raises(WorkloadError, match=fragment):
        parse_fio_json(text)


def test_parse_wrong_types():
    doc = json.loads(fixture("probe-write-20k.json"))
    doc["jobs"][0]["write"]["clat_ns"]["min"] = "fast"
    with pytest.raises(WorkloadError, match="clat_ns.min is not a number"):
        parse_fio_json(json.dumps(doc))
    doc = json.loads(fixture("probe-write-20k.json"))
    doc["jobs"][0]["write"]["clat_ns"]["percentile"] = {"ninety": 5}
    with pytest.raises(WorkloadError, match="percentile has a non-numeric entry"):
        parse_fio_json(json.dumps(doc))


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(
                        st.sampled_from(["fio version", "jobs", "jobname", "read", "write", "trim", "slat_ns",
                                         "clat_ns", "lat_ns", "min", "max", "mean", "N", "io_bytes", "bw_bytes",
                                         "iops", "runtime", "total_ios", "percentile", "job options"]),
                        kids, max_size=6),
                    max_leaves=15))
def test_parse_raises_only_workload_error(doc):
    try:
        parse_fio_json(json.dumps(doc))
    except WorkloadError:
        pass


def test_run_probe_through_a_runner(tmp_path):
    target = tmp_path / "scratch.dat"
    argv = probe_argv(target, size_bytes=20480, offset_bytes=1048576)
    with expected_commands([(argv, fixture("probe-write-20k.json"))]) as runner:
        job = run_probe(target, size_bytes=20480, offset_bytes=1048576, runner=runner)
    assert job.write.total_ios == 1


def test_run_probe_failures(tmp_path):
    target = tmp_path / "scratch.dat"
    argv = probe_argv(target, size_bytes=1024, offset_bytes=0)
    runner = ReplayRunner([Exchange(argv, missing=True)])
    with pytest.raises(WorkloadError, match="not installed") as info:
        run_probe(target, size_bytes=1024, offset_bytes=0, runner=runner)
    assert info.value.hint == "install it: apt-get install fio"
    runner = ReplayRunner([(argv, (1, fixture("error-einval-stdout.txt"), fixture("error-einval-stderr.txt")))])
    with pytest.raises(WorkloadError, match="exited with status 1") as info:
        run_probe(target, size_bytes=1024, offset_bytes=0, runner=runner)
    assert "write offset=0, buflen=1000" in str(info.value)      # fio's stderr tail
    runner = ReplayRunner([Exchange(argv, timeout=True)])
    with pytest.raises(WorkloadError, match="did not finish"):
        run_probe(target, size_bytes=1024, offset_bytes=0, runner=runner, timeout_s=3)
    # a job error with status 0 (fio continues after some errors)
    doc = json.loads(fixture("probe-write-20k.json"))
    doc["jobs"][0]["error"] = 5
    runner = ReplayRunner([(argv, json.dumps(doc))])
    with pytest.raises(WorkloadError, match="error 5 \\(Input/output error\\)"):
        run_probe(target, size_bytes=1024, offset_bytes=0, runner=runner)


def test_run_jobfile_passes_target_and_variables(tmp_path):
    job = jobfile_path("recsize-sweep.fio")
    target = tmp_path / "recsize.dat"
    with expected_commands([Exchange(jobfile_argv(job), 0, fixture("recsize-sweep-4m.json"),
                                     env={"TARGET": str(target), "SWEEP_SIZE": "4m"})]) as runner:
        report = run_jobfile(job, target=target, env={"SWEEP_SIZE": "4m"}, runner=runner)
    assert len(report.jobs) == 5


def test_writing_a_block_device_needs_the_claim(node):
    node = node.path
    with pytest.raises(UnsafeTarget, match="without the guard's exclusive hold"):
        run_probe(node, size_bytes=4096, offset_bytes=0, runner=ReplayRunner([]))
    with pytest.raises(UnsafeTarget):
        run_jobfile(jobfile_path("precondition.fio"), target=node, runner=ReplayRunner([]))

    class Claim:
        def __init__(self, closed, checked):
            self.closed, self.checked = closed, checked

        def covers(self, path):
            return True

    for stale in (Claim(closed=True, checked=True), Claim(closed=False, checked=False)):
        with pytest.raises(UnsafeTarget):
            run_probe(node, size_bytes=4096, offset_bytes=0, runner=ReplayRunner([]), claim=stale)
    argv = probe_argv(node, size_bytes=4096, offset_bytes=0)
    with expected_commands([(argv, fixture("probe-write-20k.json"))]) as runner:
        run_probe(node, size_bytes=4096, offset_bytes=0, runner=runner, claim=Claim(closed=False, checked=True))
    # reading needs no claim
    argv = probe_argv(node, size_bytes=4096, offset_bytes=0, op="read")
    with expected_commands([(argv, fixture("probe-read-20k.json"))]) as runner:
        run_probe(node, size_bytes=4096, offset_bytes=0, op="read", runner=runner)
