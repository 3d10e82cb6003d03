"""Model limits as data: the instruments/*.toml files load, agree with the manuals, and
the drivers' checks name the valid values."""

from __future__ import annotations

import pytest

from charz.errors import UsageError
from charz.scope import ScopeSettings, load_model, load_models
from charz.scope._limits import (
    derived_horizontal_scale_s,
    keysight_memory_depth,
    manual_sample_rate_hz,
    valid_intervals_s,
)
from charz.scope._models import find_model
from charz.scope._wire import parse_idn

pytestmark = pytest.mark.unit


def test_every_description_loads_and_matches_its_own_example_idn():
    models = load_models()
    assert {m.name for m in models} >= {"tek_dpo3000", "tek_mdo3000", "tek_mso5", "keysight_dsox3000"}
    for m in models:
        ident = parse_idn(m.example_idn)
        assert find_model(ident.manufacturer, ident.model, models) is m, m.name


@pytest.mark.parametrize("maker, model, name", [
    ("TEKTRONIX", "DPO3012", "tek_dpo3000"), ("TEKTRONIX", "MSO3054", "tek_dpo3000"),
    ("TEKTRONIX", "DPO4104B", "tek_dpo4000"), ("TEKTRONIX", "MDO4104C", "tek_mdo3000"),
    ("TEKTRONIX", "MSO58", "tek_mso5"), ("AGILENT TECHNOLOGIES", "DSO-X 3024A", "keysight_dsox3000"),
    ("KEYSIGHT TECHNOLOGIES", "MSOX3104T", "keysight_dsox3000"), ("RIGOL TECHNOLOGIES", "DS1054Z", None),
    # issue 24: the 2000-series Tek and the 1000/2000 X-Series share their family's commands
    ("TEKTRONIX", "MSO2024B", "tek_dpo2000"), ("TEKTRONIX", "DPO2012", "tek_dpo2000"),
    ("AGILENT TECHNOLOGIES", "DSO-X 2024A", "keysight_dsox1000_2000"),
    ("KEYSIGHT TECHNOLOGIES", "DSOX1204G", "keysight_dsox1000_2000"),
    ("KEYSIGHT TECHNOLOGIES", "DSOX1102G", "keysight_dsox1000_2000"),
    ("TEKTRONIX", "TDS2024B", "tek_tds2000"), ("TEKTRONIX", "TPS 2012", "tek_tds2000"),
    ("TEKTRONIX", "TBS1052C", None),
])
def test_idn_selects_the_family(maker, model, name):
    found = find_model(maker, model, load_models())
    assert (found.name if found else None) == name


def test_tek_code_limits_follow_the_manual():
    m = load_model("tek_dpo3000")
    assert m.code_limits(1) == (-128, 127)
    assert m.code_limits(2) == (-32768, 127 << 8)  # the 8-bit value in the high byte
    assert load_model("tek_mso5").code_limits(2) == (-32768, 2047 << 4)


def test_derived_timebase_accepts_the_124_sequence_and_names_alternatives():
    m = load_model("tek_dpo3000")
    assert derived_horizontal_scale_s(m, ScopeSettings(record_length=100_000, sample_interval_s=2e-6)) == 0.02
    assert 2e-6 in [round(x, 12) for x in valid_intervals_s(m, 10_000)]
    with pytest.raises(UsageError) as info:
        derived_horizontal_scale_s(m, ScopeSettings(record_length=10_000, sample_interval_s=1.5e-6))
    assert "1e-06 s" in info.value.hint and "2e-06 s" in info.value.hint
    with pytest.raises(UsageError, match="offers record lengths"):
        derived_horizontal_scale_s(m, ScopeSettings(record_length=2_000))


def test_manual_rate_and_keysight_depth():
    mso = load_model("tek_mso5")
    assert manual_sample_rate_hz(mso, ScopeSettings(record_length=2_000, sample_interval_s=8e-7)) == 1.25e6
    with pytest.raises(UsageError, match="no sample rate"):
        manual_sample_rate_hz(mso, ScopeSettings(record_length=2_000, sample_interval_s=3e-6))
    ks = load_model("keysight_dsox3000")
    assert keysight_memory_depth(ks, ScopeSettings(record_length=10_000, sample_interval_s=2e-6)) == 4_000_000
    with pytest.raises(UsageError, match="not an integer decimation") as info:
        keysight_memory_depth(ks, ScopeSettings(record_length=4_000, sample_interval_s=5e-10))
    works = [int(x) for x in info.value.hint.split(": ")[1].split(", ")]
    assert works and 4_000 not in works
    for n in works:
        keysight_memory_depth(ks, ScopeSettings(record_length=n, sample_interval_s=5e-10))


def test_a_broken_description_is_a_usage_error_naming_the_file(tmp_path):
    (tmp_path / "bad.toml").write_text('schema = 1\nfamily = "tek_dpo"\n')
    with pytest.raises(UsageError, match="bad.toml"):
        load_model("bad", tmp_path)
    (tmp_path / "worse.toml").write_text("schema = 2\n")
    with pytest.raises(UsageError, match="unknown schema"):
        load_model("worse", tmp_path)
    with pytest.raises(UsageError, match="no instrument description") as info:
        load_model("nope", tmp_path)
    assert "bad" in info.value.hint


@pytest.mark.parametrize("idn", ["TEKTRONIX,TDS 2024B,C1,FV:v22.16", "TEKTRONIX,TBS1052C,C1,CF:91.1CT FV:v1.34"])
def test_a_model_without_a_driver_is_refused_by_name(idn):
    # The mock plays the TDS/TPS 2000 for public clients; charz itself has no driver for it,
    # and the refusal lists only the families it does drive.
    from charz.errors import ScopeProtocolError
    from charz.scope._registry import select_driver

    with pytest.raises(ScopeProtocolError, match="no charz driver") as info:
        select_driver(parse_idn(idn))
    assert "tek_tds2000" not in info.value.hint and "tek_dpo2000" in info.value.hint
