"""The archive's wire format as pure functions: dict ↔ dataclass, validation."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from charz.archive import Capture, Channel
from charz.archive import _format as fmt
from charz.waveform import Waveform

pytestmark = pytest.mark.unit

FAKE_SHA = "ab" * 32

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | finite | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)


@st.composite
def channel_sets(draw, sample_interval_s: float = 2e-6, t_first_s: float = -1e-4):
    n = draw(st.integers(0, 40))
    names = draw(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True), min_size=1, max_size=3, unique=True))
    channels = []
    for name in names:
        dtype = draw(st.sampled_from([np.int8, np.int16]))
        info = np.iinfo(dtype)
        codes = draw(hnp.arrays(dtype, n))
        lo = draw(st.integers(int(info.min), int(info.max) - 1))
        hi = draw(st.integers(lo + 1, int(info.max)))
        w = Waveform(
            codes,
            # within the physical ranges (fmt.MAX_Y_MULT ...); outside them is tested below
            y_mult=draw(st.floats(1e-15, fmt.MAX_Y_MULT) | st.floats(-fmt.MAX_Y_MULT, -1e-15)),
            y_offset_codes=draw(st.floats(-fmt.MAX_Y_LEVEL, fmt.MAX_Y_LEVEL)),
            y_zero=draw(st.floats(-fmt.MAX_Y_LEVEL, fmt.MAX_Y_LEVEL)),
            sample_interval_s=sample_interval_s, t_first_s=t_first_s,
            unit=draw(st.sampled_from(["A", "V"])), source=draw(st.text(min_size=1, max_size=5)),
            code_min=lo, code_max=hi,
        )
        channels.append(Channel(name, w))
    return channels


@st.composite
def captures(draw):
    return Capture(
        index=draw(st.integers(0, 2_000_000)),
        step=draw(st.none() | st.integers(0, 10**6)),
        op=draw(st.sampled_from(["write", "read", "idle"])),  # the ops the analysis reads; others are refused
        size_bytes=draw(st.integers(0, fmt.MAX_REQUEST_BYTES)),
        offset_bytes=draw(st.integers(0, fmt.MAX_OFFSET_BYTES)),
        repeat=draw(st.integers(0, 1000)),
        time_reference=draw(st.sampled_from(["request", "trigger"])),
        channels=draw(channel_sets(draw(st.floats(*fmt.SAMPLE_INTERVAL_RANGE_S)),
                                   draw(st.floats(-fmt.MAX_TIME_S, fmt.MAX_TIME_S)))),
        warnings=draw(st.lists(st.text(max_size=20), max_size=3)),
        host=draw(json_objects),
        extra=draw(json_objects),
    )


def files_for(capture: Capture) -> list[fmt.ChannelFile]:
    return [
        fmt.ChannelFile(
            c.name, fmt.channel_file_name(capture.index, c.name), c.waveform.codes.dtype.name, c.n_samples,
            128 + c.waveform.codes.nbytes, FAKE_SHA,
        )
        for c in capture.channels
    ]


def a_waveform(codes=None, **changes) -> Waveform:
    fields = dict(y_mult=1e-4, y_offset_codes=3.5, y_zero=0.01, sample_interval_s=2e-6, t_first_s=-1e-4, unit="A",
                  source="CH1", code_min=-32768, code_max=32767)
    return Waveform(np.arange(5, dtype=np.int16) if codes is None else codes, **{**fields, **changes})


def a_capture(**changes) -> Capture:
    fields = dict(
        index=7, step=2, op="write", size_bytes=32768, offset_bytes=4096, repeat=1,
        time_reference="request", channels=[Channel("current", a_waveform())],
        warnings=["clipped"], host={"t_request_ns": 123}, extra={},
    )
    return Capture(**{**fields, **changes})


def a_record() -> dict:
    cap = a_capture()
    return capture_dict(cap)


def capture_dict(cap: Capture) -> dict:
    return json.loads(json.dumps(fmt.capture_to_dict(cap, files_for(cap)), allow_nan=False))


# -- round trips --------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(captures())
def test_capture_survives_dict_and_json_round_trip(cap):
    record = capture_dict(cap)  # through JSON text, as on disk
    back = fmt.capture_from_dict(record, {c.name: c.waveform.codes for c in cap.channels})
    assert back == cap
    for a, b in zip(back.channels, cap.channels):
        assert a.waveform.codes.dtype == b.waveform.codes.dtype
        assert a.waveform.codes.tobytes() == b.waveform.codes.tobytes()
    assert capture_dict(back) == record


@settings(max_examples=30, deadline=None)
@given(json_objects, st.text(min_size=1, max_size=10))
def test_session_dict_round_trips(metadata, created):
    metadata = {k: v for k, v in metadata.items() if k not in fmt.RESERVED_METADATA + fmt.METADATA_SECTIONS}
    session = fmt.new_session(metadata, created_utc=created, tool_version="9.9")
    assert fmt.validate_session(json.loads(json.dumps(session))) == session
    assert {k: session[k] for k in metadata} == metadata


def test_new_session_fills_sections_and_refuses_reserved_keys():
    session = fmt.new_session({"drive": {"model": "MXP"}}, created_utc="2026-01-01T00:00:00Z", tool_version="0.1.0")
    assert session["schema"] == fmt.SESSION_SCHEMA
    assert session["tool"] == {"name": "charz", "version": "0.1.0"}
    assert (session["drive"], session["bench"], session["plan"]) == ({"model": "MXP"}, {}, {})
    for key in fmt.RESERVED_METADATA:
        with pytest.raises(ValueError, match=key):
            fmt.new_session({key: "x"}, created_utc="t", tool_version="v")
    with pytest.raises(ValueError, match="session.drive"):
        fmt.new_session({"drive": [1, 2]}, created_utc="t", tool_version="v")
    with pytest.raises(ValueError, match="JSON"):
        fmt.new_session({"note": float("nan")}, created_utc="t", tool_version="v")


def test_updated_session_replaces_top_level_keys_only():
    session = fmt.new_session({"plan": {"a": 1}}, created_utc="t", tool_version="v")
    new = fmt.updated_session(session, {"finished_utc": "later", "plan": {"b": 2}})
    assert new["finished_utc"] == "later" and new["plan"] == {"b": 2} and new["created_utc"] == "t"
    assert "finished_utc" not in session  # pure: the input is untouched
    with pytest.raises(ValueError, match="schema"):
        fmt.updated_session(session, {"schema": "charz.archive/2"})


# -- malformed records: every field is checked, and the message names it ----------

BAD_CAPTURE_VALUES = {
    "schema": ["charz.capture", "charz.captures/1", "charz.capture/0", 1],
    "index": [-1, 1.0, True, "3", None],
    "step": [-1, 2.5, "2"],
    "op": ["", 3, None, "trim"],
    # issue 25: a request of 1e15 bytes kept analyze busy for minutes; physical ranges refuse it
    "size_bytes": [-1, 1.5, True, 10**15, 2**30 + 1],
    "offset_bytes": [-4096, None, 2**60],
    "repeat": [-1, "0", 10**9],
    "sample_interval_s": [0, -2e-6, float("nan"), float("inf"), "2e-6", None, 1e-15, 3600.0],
    "t_first_sample_s": [float("nan"), None, "0", 1e300],
    "time_reference": ["Request", "scope", None],
    "channels": [[], {}, None],
    "warnings": ["clipped", [1], None],
    "host": [[], None, "x"],
    "extra": [[1], None],
}


@pytest.mark.parametrize(
    ("field", "value"), [(f, v) for f, values in BAD_CAPTURE_VALUES.items() for v in values]
)
def test_bad_capture_field_is_refused_naming_it(field, value):
    record = a_record()
    record[field] = value
    with pytest.raises(fmt.FormatError, match=f"capture.{field}|capture: "):
        fmt.capture_files(record)


@pytest.mark.parametrize("field", [f.name for f in fmt.CAPTURE_FIELDS])
def test_missing_capture_field_is_refused_naming_it(field):
    record = a_record()
    del record[field]
    with pytest.raises(fmt.FormatError, match=f"has no '{field}'"):
        fmt.capture_files(record)


BAD_CHANNEL_VALUES = {
    "name": ["Current", "1st", "a.b", "", "x" * 33, None],
    "file": ["../000007.current.npy", "000007.voltage.npy", "7.current.npy", None],
    "dtype": ["float32", "int32", "uint8", None],
    "n_samples": [-1, 5.0, None],
    "file_bytes": [-1, "138"],
    "sha256": ["abc", "AB" * 32, None],
    "scaling": [None, [], {"y_mult": 1.0}],
    "source": ["", None],
    "code_min": [-40000, 40000, 1.5, None],
    "code_max": [-32768, 70000, None],
}


@pytest.mark.parametrize(
    ("field", "value"), [(f, v) for f, values in BAD_CHANNEL_VALUES.items() for v in values]
)
def test_bad_channel_field_is_refused_naming_it(field, value):
    record = a_record()
    record["channels"][0][field] = value
    with pytest.raises(fmt.FormatError, match=r"capture.channels\[0\]"):
        fmt.capture_files(record)


@pytest.mark.parametrize(
    ("field", "value"),
    [("y_mult", 0), ("y_mult", float("nan")), ("y_offset_codes", None), ("y_zero", "0"), ("unit", "W"), ("unit", "a"),
     # issue 25: y_mult 1e300 made every current infinite (a traceback in analyze, accepted by report)
     ("y_mult", 1e300), ("y_mult", -1e4), ("y_mult", 1e-300), ("y_zero", 1e300), ("y_offset_codes", -1e9)],
)
def test_bad_scaling_is_refused_naming_it(field, value):
    record = a_record()
    record["channels"][0]["scaling"][field] = value
    with pytest.raises(fmt.FormatError, match=rf"capture.channels\[0\].scaling.{field}"):
        fmt.capture_files(record)


def test_channel_set_must_have_unique_names_and_equal_lengths():
    record = a_record()
    record["channels"].append(copy.deepcopy(record["channels"][0]))
    with pytest.raises(fmt.FormatError, match="unique"):
        fmt.capture_files(record)
    other = copy.deepcopy(record["channels"][0])
    other.update(name="voltage", file="000007.voltage.npy", n_samples=4)
    record["channels"][1] = other
    with pytest.raises(fmt.FormatError, match="same number of samples"):
        fmt.capture_files(record)


def test_newer_schema_is_unsupported_not_malformed():
    record = a_record()
    record["schema"] = "charz.capture/2"
    with pytest.raises(fmt.UnsupportedVersion, match="newer"):
        fmt.capture_files(record)
    session = fmt.new_session({}, created_utc="t", tool_version="v")
    session["schema"] = "charz.archive/7"
    with pytest.raises(fmt.UnsupportedVersion):
        fmt.validate_session(session)


def test_unknown_keys_are_ignored_for_forward_compatibility():
    record = a_record()
    record["future_field"] = {"x": 1}
    record["channels"][0]["future_field"] = 3
    assert fmt.capture_files(record) == fmt.capture_files(a_record())


def test_codes_must_match_their_record():
    record = a_record()
    with pytest.raises(fmt.FormatError, match="int8"):
        fmt.capture_from_dict(record, {"current": np.arange(5, dtype=np.int8)})
    with pytest.raises(fmt.FormatError, match=r"\[5\]"):
        fmt.capture_from_dict(record, {"current": np.arange(6, dtype=np.int16)})
    with pytest.raises(fmt.FormatError, match="no codes"):
        fmt.capture_from_dict(record, {})


def test_capture_to_dict_needs_an_index_and_matching_files():
    cap = a_capture(index=None)
    with pytest.raises(fmt.FormatError, match="index"):
        fmt.capture_to_dict(cap, [])
    with pytest.raises(fmt.FormatError, match="files"):
        fmt.capture_to_dict(a_capture(), [])


# -- the dataclasses check their arguments ------------------------------------------


@pytest.mark.parametrize("codes", [np.zeros(3, dtype=np.int32), np.zeros(3, dtype=np.uint8), [1, 2, 3]])
def test_channel_accepts_only_int8_or_int16_codes(codes):
    with pytest.raises(fmt.FormatError, match="1-D int8 or int16"):
        Channel("current", a_waveform(codes, code_min=-128, code_max=127))


@pytest.mark.parametrize("codes", [np.zeros(3, dtype=np.float32), np.zeros((2, 2), dtype=np.int8)])
def test_no_waveform_holds_other_than_1d_integer_codes(codes):
    with pytest.raises(TypeError, match="1-D integer array"):
        a_waveform(codes)


def test_channel_limits_must_be_known_and_fit_the_dtype():
    codes = np.zeros(3, dtype=np.int8)
    with pytest.raises(ValueError, match="code_min"):
        Channel("current", a_waveform(codes, code_min=-129, code_max=127))
    with pytest.raises(ValueError, match="code_min"):
        Channel("current", a_waveform(codes, code_min=5, code_max=5))
    with pytest.raises(fmt.FormatError, match="code_max"):
        Channel("current", a_waveform(codes, code_min=-128, code_max=None))


def test_a_capture_has_one_time_axis():
    one = Channel("current", a_waveform())
    other = Channel("voltage", a_waveform(t_first_s=0.0, unit="V"))
    with pytest.raises(fmt.FormatError, match="one time axis"):
        a_capture(channels=[one, other])


def test_capture_checks_channels_and_normalises_free_dicts():
    with pytest.raises(ValueError, match="non-empty"):
        a_capture(channels=[])
    ch = a_capture().channels[0]
    with pytest.raises(ValueError, match="unique"):
        a_capture(channels=[ch, ch])
    with pytest.raises(ValueError, match="sample_interval_s"):
        a_capture(channels=[Channel("current", a_waveform(sample_interval_s=float("nan")))])
    with pytest.raises(ValueError, match="t_first_sample_s"):
        a_capture(channels=[Channel("current", a_waveform(t_first_s=2e6))])
    with pytest.raises(ValueError, match="host"):
        a_capture(host={"t": float("inf")})
    cap = a_capture(host={"pair": (1, 2), 3: "x"}, warnings=["a"])
    assert cap.host == {"pair": [1, 2], "3": "x"}  # what a reader will get back
    assert cap.warnings == ("a",)


def test_scaling_follows_the_documented_formula_exactly():
    codes = np.array([-128, -1, 0, 1, 127], dtype=np.int8)
    w = a_waveform(codes, y_mult=0.0123, y_offset_codes=-3.5, y_zero=0.25, code_min=-128, code_max=127)
    expected = (codes.astype(np.float64) - (-3.5)) * 0.0123 + 0.25
    assert w.values().dtype == np.float64
    assert np.array_equal(w.values(), expected)
    with pytest.raises(fmt.FormatError, match="unit"):
        Channel("current", a_waveform(unit="mA"))
    with pytest.raises(fmt.FormatError, match="y_mult"):
        Channel("current", a_waveform(y_mult=0.0))


def test_capture_helpers():
    cap = a_capture()
    assert cap.channel("current") is cap.channels[0]
    with pytest.raises(KeyError, match="current"):
        cap.channel("voltage")
    assert np.allclose(cap.time_s(), -1e-4 + 2e-6 * np.arange(5), rtol=0, atol=1e-18)
    assert not cap.channels[0].waveform.clipped
    clipped = Channel("current", a_waveform(np.array([0, 127], dtype=np.int8), code_min=-128, code_max=127))
    assert clipped.waveform.clipped


def test_channel_equality_compares_codes_bit_for_bit():
    a = a_capture().channels[0]
    b = Channel(a.name, a_waveform(a.waveform.codes.astype(">i2")))
    c = Channel(a.name, a_waveform(a.waveform.codes + 1))
    assert a == b  # same values, other byte order: the same data
    assert a != c


# -- file names ---------------------------------------------------------------------


def test_file_names():
    assert fmt.capture_file_name(5) == "000005.json"
    assert fmt.capture_file_name(1_234_567) == "1234567.json"
    assert fmt.channel_file_name(5, "current") == "000005.current.npy"
    assert fmt.parse_capture_file_name("000005.json") == 5
    assert fmt.parse_capture_file_name("5.json") == 5  # reported as non-canonical by the reader
    assert fmt.parse_capture_file_name("000005.current.npy") is None
    assert fmt.parse_capture_file_name(".000005.json.0123456789abcdef.tmp") is None
    assert fmt.parse_channel_file_name("000005.current.npy") == (5, "current")
    assert fmt.parse_channel_file_name("000005.json") is None


@pytest.mark.parametrize(("step", "problem"), [
    ({"id": 0, "op": "trim", "size_bytes": 4096, "offset_bytes": 0}, r"plan.steps\[0\].op"),
    ({"id": 0, "op": "write", "size_bytes": 10**15, "offset_bytes": 0}, r"plan.steps\[0\].size_bytes"),
    ({"id": -1, "op": "write", "size_bytes": 4096, "offset_bytes": 0}, r"plan.steps\[0\].id"),
    ({"op": "write", "size_bytes": 4096, "offset_bytes": 0}, r"has no 'id'"),
])
def test_a_bad_plan_step_is_refused_naming_it(step, problem):
    session = {**fmt.new_session({}, created_utc="t", tool_version="9.9"), "plan": {"steps": [step]}}
    with pytest.raises(fmt.FormatError, match=problem):
        fmt.validate_session(session)


def test_a_capture_must_be_what_its_plan_step_asked_for():
    steps = fmt.plan_steps({"steps": [{"id": 0, "op": "write", "size_bytes": 4096, "offset_bytes": 0},
                                      {"id": 1, "op": "fill", "size_bytes": 1 << 40, "offset_bytes": 0}]})
    fmt.check_against_plan({"step": 0, "op": "write", "size_bytes": 4096}, steps, "capture")
    fmt.check_against_plan({"step": None, "op": "idle", "size_bytes": 0}, steps, "capture")
    with pytest.raises(fmt.FormatError, match=r"capture.step must be a step of the session's plan"):
        fmt.check_against_plan({"step": 7, "op": "write", "size_bytes": 4096}, steps, "capture")
    with pytest.raises(fmt.FormatError, match=r"capture.size_bytes must be 4096"):
        fmt.check_against_plan({"step": 0, "op": "write", "size_bytes": 8192}, steps, "capture")
    with pytest.raises(fmt.FormatError, match=r"capture.op must be 'write'"):
        fmt.check_against_plan({"step": 0, "op": "read", "size_bytes": 4096}, steps, "capture")


@pytest.mark.parametrize(("plan", "problem"), [
    ({"write_sizes": [4096, 10**15]}, r"plan.write_sizes\[1\]"),
    ({"read_sizes": [-1]}, r"plan.read_sizes\[0\]"),
    ({"span_bytes": 2**60}, r"plan.span_bytes"),
    ({"repeats": 10**9}, r"plan.repeats"),
])
def test_the_plans_sizes_are_refused_out_of_range(plan, problem):
    session = {**fmt.new_session({}, created_utc="t", tool_version="9.9"), "plan": plan}
    with pytest.raises(fmt.FormatError, match=problem):
        fmt.validate_session(session)
