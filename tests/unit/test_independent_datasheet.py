"""The second generator family (tests/independent_datasheet) is independent and has its physics.

Checked from the generator's own schedule and current, not from charz: it imports
neither charz nor the first family; its archive is readable with docs/archive.md's
numpy + json reader; the truth stays outside the archive; a unit programs whole; the
package's dies share one pump; cache program overlaps the next transfer with a program.
"""

import ast
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.independent_datasheet.archive import truth_path, write_session
from tests.independent_datasheet.controller import PROG, SENSE, XFER, read_ops, write_ops
from tests.independent_datasheet.ssd import random_ssd
from tests.independent_datasheet.waveform import clean_current, package_gains

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[1] / "independent_datasheet"


def test_family_imports_neither_charz_nor_the_first_family():
    for path in ROOT.glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        bad = [m for m in names if m.split(".")[0] == "charz" or m == "tests.independent"
               or m.startswith("tests.independent.")]
        assert not bad, f"{path.name} imports {bad}"


def test_drawn_wider_than_the_first_family():
    ssds = [random_ssd(s) for s in range(300)]
    assert {s.channels for s in ssds} >= {1, 2, 4, 8, 16}
    assert max(s.ways for s in ssds) == 8 and max(s.dies for s in ssds) == 8
    assert {s.page_bytes for s in ssds} == {4096, 8192, 16384}
    assert {s.adc_bits for s in ssds} == {8, 10, 12} and {s.dt_us for s in ssds} == {1.0, 2.0, 4.0}
    progs = [s.t_prog_us * t for s in ssds for t in s.page_types]
    assert min(progs) < 250 and max(progs) > 2500


def _reader(path):  # docs/archive.md's reader, as printed there
    root, captures = Path(path), []
    for f in sorted((root / "captures").glob("[0-9]*.json"), key=lambda f: int(f.stem)):
        captures.append(json.loads(f.read_text("utf-8")))
        for ch in captures[-1]["channels"]:
            s, ch["codes"] = ch["scaling"], np.load(f.parent / ch["file"])
            ch["si"] = (ch["codes"].astype(np.float64) - s["y_offset_codes"]) * s["y_mult"] + s["y_zero"]
    return json.loads((root / "session.json").read_text("utf-8")), captures


def test_archive_reads_with_the_documented_reader_and_truth_is_outside(tmp_path):
    seed = next(s for s in range(50) if random_ssd(s).adc_bits == 12 and len(random_ssd(s).write_sizes()) < 60)
    ssd = random_ssd(seed)
    root = write_session(ssd, tmp_path / "s")
    meta, caps = _reader(root)
    assert meta["schema"] == "charz.archive/1" and meta["drive"]["given"]["packages"] == ssd.packages
    assert not any("truth" in p.name for p in root.rglob("*"))
    assert json.loads(truth_path(root).read_text())["truth"] == ssd.truth()
    ch = caps[0]["channels"][0]
    assert ch["dtype"] == "int16" and ch["codes"].dtype == np.int16 and ch["code_max"] == 2047 << 4
    idle = ch["si"][: int(0.05 * ch["n_samples"])]
    assert np.median(idle) == pytest.approx(ssd.i_idle, abs=5 * ssd.noise_a + 2 * ssd.hum_a + ssd.drift_a + 0.002)


@pytest.mark.parametrize("seed", range(6))
def test_a_unit_programs_whole_and_each_package_once_per_unit(seed):
    ssd = random_ssd(seed)
    ops = write_ops(ssd, ssd.page_bytes, np.random.default_rng(0))  # one page
    progs = [o for o in ops if o.kind == PROG]
    assert len(progs) == ssd.unit_pages
    assert len({o.package for o in progs}) == ssd.unit_packages


def test_dies_of_a_package_do_not_add_and_the_pump_serves_them_in_turn():
    ssd = replace(random_ssd(3), dies=4, unit_packages=1, pkg_spread=0.0, i_host=0.0)
    ops = write_ops(ssd, ssd.unit_bytes, np.random.default_rng(0))
    progs = [o for o in ops if o.kind == PROG]
    both = (max(o.start for o in progs), min(o.end for o in progs))
    t = np.arange(both[0] + 1, both[1] - 1, 0.05)
    i = clean_current(ssd, [o for o in ops if o.kind == PROG], t, package_gains(ssd)) - ssd.i_idle
    hi, lo = ssd.icc2 * (1 + ssd.ispp_depth / 2), ssd.icc2 * (1 - ssd.ispp_depth / 2)
    assert i.max() == pytest.approx(hi) and i.min() == pytest.approx(lo)  # one die's pulse, never 4 stacked
    drops = np.count_nonzero(np.diff(i) < 0)
    assert drops == pytest.approx(4 * (t[-1] - t[0]) / ssd.ispp_period_us, abs=2)


def test_cache_program_overlaps_the_next_transfer_with_the_program():
    base = replace(random_ssd(11), dies=1, unit_packages=1, channels=1, ways=2, rmw=False)
    for cache in (False, True):
        ssd = replace(base, cache_program=cache)
        ops = write_ops(ssd, 3 * ssd.unit_bytes * ssd.packages, np.random.default_rng(0))
        progs = [o for o in ops if o.kind == PROG and o.package == 0]
        xfers = [o for o in ops if o.kind == XFER]
        # the second page for package 0 crosses the channel while its first page programs, with cache only
        second = sorted(xfers, key=lambda o: o.start)[ssd.packages]
        assert (second.start < progs[0].end) == cache


def test_reads_sense_once_per_read_unit():
    ssd = replace(random_ssd(4), read_pages=4)
    ops = read_ops(ssd, 16 * ssd.page_bytes, np.random.default_rng(0))
    starts = {round(o.start, 6) for o in ops if o.kind == SENSE}
    assert len(starts) == 4
