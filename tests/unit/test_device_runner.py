"""The runner seam: the real subprocess runner, the replaying fake, run_tool's errors."""

from __future__ import annotations

import sys

import pytest

from charz.device import SubprocessRunner, run_tool
from charz.device.testing import Exchange, RecordingRunner, ReplayRunner, expected_commands, load_exchanges
from charz.errors import DeviceCommandFailed

pytestmark = pytest.mark.unit


def test_subprocess_runner_captures_and_never_uses_a_shell():
    runner = SubprocessRunner()
    result = runner.run([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
                        timeout_s=30)
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")
    # a shell metacharacter is just an argument
    echoed = runner.run([sys.executable, "-c", "import sys; print(sys.argv[1])", "$(echo pwned); ls"], timeout_s=30)
    assert echoed.stdout == "$(echo pwned); ls\n"


def test_subprocess_runner_passes_env_and_forces_c_locale():
    result = SubprocessRunner().run(
        [sys.executable, "-c", "import os; print(os.environ['SIZE'], os.environ['LC_ALL'])"],
        timeout_s=30, env={"SIZE": "20480"})
    assert result.stdout.split() == ["20480", "C"]


def test_runner_rejects_a_command_string():
    with pytest.raises(TypeError, match="argument lists"):
        SubprocessRunner().run("hdparm -W0 /dev/sda", timeout_s=5)


def test_run_tool_missing_program_names_the_debian_package():
    with expected_commands([Exchange(("hdparm", "-W", "/dev/sdb"), missing=True)]) as runner:
        with pytest.raises(DeviceCommandFailed, match="hdparm is not installed") as info:
            run_tool(runner, ["hdparm", "-W", "/dev/sdb"])
    assert info.value.hint == "install it: apt-get install hdparm"
    assert info.value.code == "ENOENT"


@pytest.mark.parametrize("tool, package", [("nvme", "nvme-cli"), ("smartctl", "smartmontools"),
                                           ("wipefs", "util-linux"), ("fio", "fio")])
def test_missing_tool_hints(tool, package):
    with pytest.raises(DeviceCommandFailed) as info:
        run_tool(ReplayRunner([Exchange((tool, "x"), missing=True)]), [tool, "x"])
    assert info.value.hint.endswith(f"apt-get install {package}")


def test_run_tool_with_the_real_runner_and_a_program_that_does_not_exist():
    with pytest.raises(DeviceCommandFailed, match="not installed"):
        run_tool(SubprocessRunner(), ["charz-no-such-tool-xyz", "-V"])


def test_run_tool_nonzero_exit_quotes_stderr():
    runner = ReplayRunner([(("hdparm", "-W0", "/dev/loop0"),
                            (22, "\n/dev/loop0:\n setting drive write-caching to 0 (off)\n",
                             " HDIO_DRIVE_CMD(setcache) failed: Invalid argument\n"))])
    with pytest.raises(DeviceCommandFailed, match="HDIO_DRIVE_CMD\\(setcache\\) failed") as info:
        run_tool(runner, ("hdparm", "-W0", "/dev/loop0"), what="set the write cache")
    assert info.value.code == 22
    assert str(info.value).startswith("cannot set the write cache")


def test_run_tool_check_false_returns_the_status():
    runner = ReplayRunner([(("blkid", "-p", "/dev/loop0"), (2, "", ""))])
    assert run_tool(runner, ("blkid", "-p", "/dev/loop0"), check=False).returncode == 2


def test_run_tool_timeout():
    runner = ReplayRunner([Exchange(("hdparm", "--security-erase", "p", "/dev/sdb"), timeout=True)])
    with pytest.raises(DeviceCommandFailed, match="did not finish within 5 s"):
        run_tool(runner, ("hdparm", "--security-erase", "p", "/dev/sdb"), timeout_s=5)


def test_replay_runner_rejects_unexpected_and_unused_commands():
    runner = ReplayRunner([(("a",), "1"), (("b",), "2")])
    with pytest.raises(AssertionError, match="differs"):
        runner.run(("b",), timeout_s=1)
    runner = ReplayRunner([(("a",), "1"), (("b",), "2")])
    runner.run(("a",), timeout_s=1)
    with pytest.raises(AssertionError, match="never ran"):
        runner.assert_all_used()
    runner.run(("b",), timeout_s=1)
    runner.assert_all_used()
    with pytest.raises(AssertionError, match="no more expected"):
        runner.run(("c",), timeout_s=1)


def test_expected_commands_checks_on_exit():
    with pytest.raises(AssertionError, match="never ran"):
        with expected_commands([(("a",), "1")]):
            pass


def test_replay_runner_interrupt_and_env():
    runner = ReplayRunner([Exchange(("fio", "job.fio"), env={"TARGET": "/x"}), Exchange(("hdparm", "-y", "d"),
                                                                                        interrupt=True)])
    with pytest.raises(AssertionError, match="env TARGET"):
        runner.run(("fio", "job.fio"), timeout_s=1, env={"TARGET": "/y"})
    runner = ReplayRunner([Exchange(("hdparm", "-y", "d"), interrupt=True)])
    with pytest.raises(KeyboardInterrupt):
        runner.run(("hdparm", "-y", "d"), timeout_s=1)


def test_recording_runner_saves_what_replays(tmp_path):
    rec = RecordingRunner(SubprocessRunner())
    rec.run([sys.executable, "-c", "print('hello')"], timeout_s=30)
    with pytest.raises(FileNotFoundError):
        rec.run(["charz-no-such-tool-xyz"], timeout_s=30)
    rec.save(tmp_path / "session.json")
    replay = ReplayRunner(load_exchanges(tmp_path / "session.json"))
    assert replay.run([sys.executable, "-c", "print('hello')"], timeout_s=1).stdout == "hello\n"
    with pytest.raises(FileNotFoundError):
        replay.run(["charz-no-such-tool-xyz"], timeout_s=1)
    replay.assert_all_used()
