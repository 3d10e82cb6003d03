"""Issue 15 (3): the host rules of charz.tune._tool_limits for hosts other than this one.

Each expectation is the tool's or kernel's documented behaviour (module docstring), not
charz's output; tests/system/test_tune_mkfs_loop.py checks them against the real tools.
"""

from __future__ import annotations

import pytest

from charz.tune import advise
from charz.tune._tool_limits import Host, check_block_size
from charz.tune.testing import preset_profile

pytestmark = pytest.mark.unit

X86 = Host(4096, (6, 18), (4096,), "6.18")
ARM64K = Host(65536, (6, 1), (4096, 65536), "6.1")  # 64 KiB pages: btrfs lists both (subpage)
OLD = Host(4096, (6, 6), None, "6.6")  # btrfs not loaded: the kernel does not say


@pytest.mark.parametrize("block", [1024, 2048])
def test_mkfs_btrfs_never_takes_a_sector_below_4k(block):
    for host in (X86, ARM64K, OLD):
        assert check_block_size("btrfs", block, host).refused


def test_btrfs_follows_the_kernels_own_list_and_warns_when_it_has_none():
    assert check_block_size("btrfs", 65536, X86).refused
    assert check_block_size("btrfs", 65536, ARM64K) == check_block_size("btrfs", 4096, ARM64K) == \
        check_block_size("btrfs", 4096, X86)
    verdict = check_block_size("btrfs", 8192, OLD)
    assert not verdict.refused and "cannot tell" in verdict.warnings[0]


def test_ext4_blocks_up_to_the_page_mount_and_larger_ones_do_not():
    assert not check_block_size("ext4", 4096, X86).refused
    assert check_block_size("ext4", 8192, X86).refused
    assert not check_block_size("ext4", 65536, ARM64K).refused


def test_xfs_blocks_above_the_page_need_linux_6_12():
    assert not check_block_size("xfs", 65536, X86).refused
    assert "6.12" in check_block_size("xfs", 65536, OLD).refused[0]


def test_a_refused_command_is_withdrawn_with_its_reason_and_nothing_to_run():
    # The two commands: mkfs.btrfs -s 1024 (btrfs-progs refuses) and an 8 KiB ext4 on a 4 KiB page.
    for fs, block in (("btrfs", 1024), ("ext4", 8192)):
        a = advise(preset_profile("mxp"), fs=fs, limits=None, block_size_bytes=block, host=X86)
        assert a.commands == () and a.refused and a.headline.startswith(f"no {fs} command")
        assert a.to_dict()["refused"] == list(a.refused)
    ok = advise(preset_profile("mxp"), fs="btrfs", limits=None, host=X86)
    assert ok.commands[0].display == "mkfs.btrfs -s 4096 -n 32768 DEV" and not ok.refused
