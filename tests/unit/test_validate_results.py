"""charz validate's pure core: the unit verdict, rows, 003 Table 4 ratios, table, profile section."""

from __future__ import annotations

import re

import pytest

from charz.errors import ProfileError, UsageError
from charz.profile import read_profile, validate_profile, write_profile
from charz.tune.testing import PRESETS, profile_dict
from charz.validate import (
    NO_PROFILE,
    MeasuredUnit,
    RailVoltage,
    ValidationRow,
    aligned_record_size,
    build_result,
    check_sweep,
    compare_aligned,
    format_table,
    is_aligned,
    unit_from_profile,
    validation_section,
    with_validation,
)

pytestmark = pytest.mark.unit

MIB = 1 << 20
SIZES = (4096, 8192, 16384, 32768, 65536)


def row(size: int, seconds: float, amps: float | None, *, unit: MeasuredUnit = NO_PROFILE, source: str = "model",
        n_bytes: int = 128 * MIB) -> ValidationRow:
    return ValidationRow(size, is_aligned(size, unit), n_bytes, seconds, amps, 5.0, source, n_bytes // size, 1, 1.0)


# -- the unit and the verdict ------------------------------------------------------------

def test_unit_from_each_reference_profile():
    for name, kw in PRESETS.items():
        unit = unit_from_profile(profile_dict(**kw), origin=f"{name}.toml")
        assert unit.value_bytes == kw["unit_bytes"]
        assert unit.cite.startswith(f"results.write_io_unit_bytes = {kw['unit_bytes']} B in {name}.toml (inferred, high")


def test_aligned_verdict_for_a_32k_unit():
    unit = MeasuredUnit(32768, "test")
    assert [is_aligned(s, unit) for s in SIZES] == [False, False, False, True, True]
    assert aligned_record_size(SIZES, unit) == 32768
    assert aligned_record_size(SIZES, MeasuredUnit(4096, "test")) == 4096
    # a unit that is no power of two (003's X-25M steps were pages; a 12 KiB unit is possible)
    assert [is_aligned(s, MeasuredUnit(12288, "t")) for s in (12288, 16384, 24576)] == [True, False, True]
    assert aligned_record_size(SIZES, MeasuredUnit(131072, "test")) is None


def test_undetermined_unit_gives_no_verdict_and_says_why():
    p = profile_dict(unit_bytes=None, n_step=4, step_pages=8)
    p["results"]["write_io_unit_bytes"]["best_guess"] = 32768
    unit = unit_from_profile(p, origin="p.toml")
    assert not unit.known
    assert "results.write_io_unit_bytes is undetermined in p.toml" in unit.cite
    assert "leaned to 32768 B, which a validation does not use" in unit.cite
    assert all(is_aligned(s, unit) is None for s in SIZES)
    assert aligned_record_size(SIZES, unit) is None


def test_no_profile_says_so():
    assert not NO_PROFILE.known and "no --profile given" in NO_PROFILE.cite


@pytest.mark.parametrize("mangle, match", [
    (lambda p: p.update(schema="charz.profile/9"), "schema is 'charz.profile/9'"),
    (lambda p: p["results"]["write_io_unit_bytes"].update(value="32k"), "results/write_io_unit_bytes"),
    (lambda p: p["results"].pop("write_io_unit_bytes"), "write_io_unit_bytes"),
    (lambda p: p["results"]["write_io_unit_bytes"].update(value=0), "results/write_io_unit_bytes/value"),
])
def test_malformed_profile_is_a_clear_profile_error(mangle, match):
    p = profile_dict(**PRESETS["qpro"])
    mangle(p)
    with pytest.raises(ProfileError, match=match):
        unit_from_profile(p, origin="p.toml")


def test_unreadable_profiles_on_disk(tmp_path):
    (tmp_path / "cut.toml").write_text('schema = "charz.profile/1"\n[results\n')
    with pytest.raises(ProfileError, match="not valid TOML"):
        read_profile(tmp_path / "cut.toml")
    with pytest.raises(ProfileError, match="cannot read profile"):
        read_profile(tmp_path / "missing.toml")


# -- rows and ratios ----------------------------------------------------------------------

def test_row_figures():
    r = row(32768, 8.0, 0.25)
    assert r.mb_per_s == pytest.approx(128 * MIB / 8.0 / 1e6)
    assert r.energy_j == pytest.approx(0.25 * 5.0 * 8.0)
    assert r.j_per_mb == pytest.approx(10.0 / (128 * MIB / 1e6))
    unmeasured = row(32768, 8.0, None, source="measured")
    assert unmeasured.energy_j is None and unmeasured.j_per_mb is None
    assert unmeasured.profile_row() == {"record_size_bytes": 32768, "aligned": None, "mb_per_s": unmeasured.mb_per_s,
                                        "mean_current_a": None, "j_per_mb": None, "source": "measured"}


@pytest.mark.parametrize("kwargs, match", [
    (dict(source="guess"), "source"), (dict(duration_s=0.0), "duration_s"), (dict(rail_v=-5.0), "rail_v"),
])
def test_row_refuses_nonsense(kwargs, match):
    base = dict(record_size_bytes=4096, aligned=None, bytes_written=MIB, duration_s=1.0, mean_current_a=0.1,
                rail_v=5.0, source="model", fio_total_ios=256, fio_runtime_ms=10, fio_mb_per_s=1.0)
    with pytest.raises(UsageError, match=match):
        ValidationRow(**{**base, **kwargs})


def test_table4_ratios_by_hand():
    # 003 Table 4's Q Pro, built backwards: 3.01× the MB/s at 32 KiB, 0.15× the energy for the same bytes.
    # 4 KiB: 128 MiB in 30.1 s at 0.2 A; 32 KiB: in 10 s at 0.2 × 0.15 × 30.1 / 10 A
    unit = MeasuredUnit(32768, "test")
    rows = [row(4096, 30.1, 0.2, unit=unit), row(8192, 20.0, 0.2, unit=unit),
            row(32768, 10.0, 0.2 * 0.15 * 3.01, unit=unit), row(65536, 8.0, 0.2, unit=unit)]
    c = compare_aligned(rows, unit)
    assert c.aligned_bytes == 32768 and c.baseline_bytes == 4096 and c.reason == ""
    assert c.mb_per_s_change_pct == pytest.approx(201.0)
    assert c.energy_change_pct == pytest.approx(-85.0)


@pytest.mark.parametrize("unit, sizes, reason", [
    (NO_PROFILE, SIZES, "unknown"),
    (MeasuredUnit(131072, "t"), SIZES, "no record size in the sweep is a multiple of the 131072 B unit"),
    (MeasuredUnit(32768, "t"), (8192, 32768), "no 4096 B records"),
    (MeasuredUnit(4096, "t"), SIZES, "already a multiple"),
])
def test_ratios_not_computed_say_why(unit, sizes, reason):
    c = compare_aligned([row(s, 1.0 + 1e5 / s, 0.2, unit=unit) for s in sizes], unit)
    assert c.mb_per_s_change_pct is None and c.energy_change_pct is None
    assert reason in c.reason


def test_ratio_without_a_current_keeps_the_throughput():
    unit = MeasuredUnit(32768, "t")
    c = compare_aligned([row(4096, 2.0, None, unit=unit), row(32768, 1.0, 0.3, unit=unit)], unit)
    assert c.mb_per_s_change_pct == pytest.approx(100.0) and c.energy_change_pct is None
    assert "not measured" in c.reason


# -- the sweep's arguments ------------------------------------------------------------------

def test_check_sweep():
    assert check_sweep([65536, 4096, 4096], 128 * MIB) == (4096, 65536)
    with pytest.raises(UsageError, match="not a whole number of 12288 B records"):
        check_sweep([12288], 128 * MIB)
    with pytest.raises(UsageError, match="not a multiple of 512 B"):
        check_sweep([1000], 128 * MIB)
    with pytest.raises(UsageError, match="no record sizes"):
        check_sweep([], 128 * MIB)


# -- the report, the JSON and the profile -----------------------------------------------------

def result_for(unit: MeasuredUnit, preset: str | None = "qpro", rail_v: float | None = None):
    rows = [row(4096, 30.1, 0.2, unit=unit), row(32768, 10.0, 0.0903, unit=unit)]
    return build_result(mode="mock", drive="preset qpro (simulated)", preset=preset, file_size_bytes=128 * MIB,
                        rows=rows, unit=unit, rail=RailVoltage.from_option(rail_v), fio_version="fio-3.33",
                        jobfile="workloads/recsize-one.fio", notes=["a note"])


def test_table_shows_verdicts_ratios_sources_and_the_rail():
    text = format_table(result_for(MeasuredUnit(32768, "results.write_io_unit_bytes = 32768 B in p.toml")))
    # MB/s, mean current (mA) and J/MB to 3-4 significant digits, then fio's own MB/s and runtime
    assert re.search(r"^ *4 KiB +no +4\.46 +200\.0 mA +0\.224 +[\d.]+ +\d+ ms$", text, re.M)
    assert re.search(r"^ *32 KiB +yes +13\.4 +90\.30 mA +0\.0336 +[\d.]+ +\d+ ms$", text, re.M)
    assert "simulated drive (model)" in text and "fio on the scratch file" in text
    assert "aligned (32 KiB) vs 4 KiB: +201 % MB/s, −85 % energy   [model]" in text
    assert "003 Table 4, qpro (measured on the real drive): +201 % MB/s, −85 % energy" in text
    assert "rail:   5 V (assumed: 5 V SATA rail, as 003 multiplies by 5 V)" in text
    assert "every MB/s, current and energy figure is 'model'" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    assert text.rstrip().endswith("  - a note")
    assert "given on the command line" in format_table(result_for(MeasuredUnit(32768, "t"), rail_v=12.0))


def test_table_without_a_unit_has_no_verdict():
    text = format_table(result_for(NO_PROFILE, preset=None))
    table = [line for line in text.splitlines() if re.search(r"KiB .* ms$", line)]
    assert [line.split()[2] for line in table] == ["?", "?"]
    assert "aligned vs 4 KiB: not computed (the write I/O unit is unknown" in text
    assert "003 Table 4" not in text


def test_the_gap_to_table_4_follows_from_the_times_per_request():
    from charz.validate._compare import Comparison, explain_gap

    def timed(size: int, per_request_s: float):
        return row(size, per_request_s * (128 * MIB // size), 0.2)

    rows = [timed(4096, 1400e-6), timed(32768, 1250e-6)]
    ours = (1400 / 1250 * 8 - 1) * 100  # MB/s ratio at QD1: sizes × inverse request times
    c = Comparison(4096, 32768, ours, -80.0, "")
    text = explain_gap(rows, c, (123.0, -71.0), 900e-6)
    # 003's ratio R = 8 × t4 / t32, so its drive's t4 = 2.23 × 1250 µs / 8 = 348 µs
    assert text.startswith(f"why +{ours:.0f} % here and +123 % in 003")
    assert "a 4 KiB write takes 1400 µs and a 32 KiB write 1250 µs" in text
    assert "about 348 µs" in text and "less than one 900 µs page program" in text
    # close enough to the paper (within a quarter of its figure): nothing to explain
    assert explain_gap(rows, Comparison(4096, 32768, 130.0, -70.0, ""), (123.0, -71.0), 900e-6) is None
    assert explain_gap(rows, c, None, 900e-6) is None


def test_json_document():
    doc = result_for(MeasuredUnit(32768, "t")).to_dict()
    assert doc["schema"] == "charz.validate/1" and doc["source"] == "model"
    assert doc["rail_v"] == 5.0 and doc["rail_v_origin"].startswith("assumed")
    assert [r["record_size_bytes"] for r in doc["rows"]] == [4096, 32768]
    assert doc["aligned_vs_4k"]["mb_per_s_change_pct"] == pytest.approx(201.0)
    assert doc["reference_003_table4"] == {"mb_per_s_change_pct": 201.0, "energy_change_pct": -85.0}


def test_profile_section_round_trips_and_validates(tmp_path):
    profile = profile_dict(**PRESETS["qpro"])
    unit = unit_from_profile(profile)
    updated = with_validation(profile, result_for(unit), created_utc="2026-01-01T00:00:00+00:00")
    assert "validation" not in profile  # the input is not modified
    path = write_profile(updated, tmp_path / "p.toml")
    back = read_profile(path)["validation"]
    assert [r["record_size_bytes"] for r in back["rows"]] == [4096, 32768]
    assert [r["aligned"] for r in back["rows"]] == [False, True]
    assert {r["source"] for r in back["rows"]} == {"model"}
    assert back["aligned_vs_4k"]["mb_per_s_change_pct"] == pytest.approx(201.0)
    assert back["aligned_vs_4k"]["energy_change_pct"] == pytest.approx(-85.0)
    assert back["rail_v_origin"].startswith("assumed") and back["notes"][-1] == "a note"


def test_profile_section_without_a_unit_drops_the_unknowns(tmp_path):
    profile = profile_dict(unit_bytes=None, n_step=4, step_pages=8)
    section = validation_section(result_for(unit_from_profile(profile)))
    validate_profile({**profile, "validation": section})
    path = write_profile({**profile, "validation": section}, tmp_path / "p.toml")
    back = read_profile(path)["validation"]
    assert all("aligned" not in r for r in back["rows"])   # TOML has no null: unknown is absent
    assert "mb_per_s_change_pct" not in back["aligned_vs_4k"] and "unknown" in back["aligned_vs_4k"]["reason"]


@pytest.mark.parametrize("mangle, match", [
    (lambda s: s["rows"][0].update(mb_per_s="fast"), "mb_per_s"),
    (lambda s: s["rows"][0].update(source="guessed"), "guessed"),
    (lambda s: s.update(rail_v=0), "rail_v"),
    (lambda s: s.pop("workload"), "workload"),
    (lambda s: s["aligned_vs_4k"].update(speedup=3), "speedup"),
])
def test_a_hand_edited_validation_section_is_refused(mangle, match):
    profile = profile_dict(**PRESETS["qpro"])
    section = validation_section(result_for(unit_from_profile(profile)))
    mangle(section)
    with pytest.raises(ProfileError, match=match):
        validate_profile({**profile, "validation": section})


def test_the_schema_file_is_the_generated_one():
    # profiles/profile.schema.json is what editors and other tools validate against.
    from pathlib import Path

    from charz.profile import schema_json

    path = Path(__file__).resolve().parents[2] / "profiles" / "profile.schema.json"
    assert path.read_text() == schema_json(), "regenerate: python -c 'from charz.profile import schema_json; " \
                                              "print(schema_json(), end=\"\")' > profiles/profile.schema.json"


def test_writing_a_profile_keeps_the_users_mode_and_says_when_it_cannot(tmp_path):
    # Profiles are written like every charz file (write_atomic): the umask decides the mode,
    # and a place that cannot hold the file is a ProfileError, not a traceback.
    import os
    import stat

    profile = profile_dict(**PRESETS["mxp"])
    old = os.umask(0o022)
    try:
        path = write_profile(profile, tmp_path / "p.toml")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert read_profile(path)["schema"] == profile["schema"]
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ProfileError, match="cannot write the profile") as info:
        write_profile(profile, blocker / "p.toml")
    assert "-o" in info.value.hint
