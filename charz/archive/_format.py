"""The archive's wire format: dataclasses, dict conversion and validation.

Pure: no file system, no clock.  The writer and the reader are the only callers
that touch files; everything they put into or take out of a JSON file passes
through the functions here, so the format has one definition.

The field tables (``SESSION_FIELDS``, ``CAPTURE_FIELDS``, ``CHANNEL_FIELDS``,
``SCALING_FIELDS``) are that definition: validation walks them, and the tables
in ``docs/archive.md`` are rendered from them (:func:`render_doc_tables`, kept
current by a test), so the documentation cannot drift from the code.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from charz.archive._given import check_given, check_rail_v
from charz.waveform import Waveform

SESSION_SCHEMA = "charz.archive/1"
CAPTURE_SCHEMA = "charz.capture/1"

SESSION_FILE = "session.json"
LOCK_FILE = "session.lock"
CAPTURES_DIR = "captures"

UNITS = ("A", "V")
TIME_REFERENCES = ("request", "trigger")
# Little-endian int16 is what the writer stores, whatever byte order it is handed.
DTYPES = {"int8": np.dtype("int8"), "int16": np.dtype("<i2")}
RESERVED_METADATA = ("schema", "created_utc", "tool")
METADATA_SECTIONS = ("drive", "bench", "plan")
CAPTURE_OPS = ("write", "read", "idle")  # what the analysis knows how to read
PLAN_OPS = CAPTURE_OPS + ("fill",)  # a fill prepares the read region and is not captured

# Lower case only: "Current" and "current" would be one file on a case-insensitive
# file system (macOS, Windows shares), silently overwriting a channel.
_CHANNEL_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_CAPTURE_FILE = re.compile(r"([0-9]+)\.json")
_CHANNEL_FILE = re.compile(r"([0-9]+)\.([a-z][a-z0-9_]{0,31})\.npy")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SCHEMA = re.compile(r"([a-z.]+)/([0-9]{1,6})")


class FormatError(ValueError):
    """A value the archive format does not allow; the message names the field."""


class UnsupportedVersion(FormatError):
    """A schema of a newer major version than this charz can read."""


# ---------------------------------------------------------------------------
# value checks: (value, where) -> normalised value, or FormatError naming `where`


def _fail(where: str, expected: str, value: Any) -> None:
    raise FormatError(f"{where} must be {expected}, got {value!r:.80}")


def _integer(value: Any, where: str) -> int:
    # bool is an int in Python but never a count in this format.
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        _fail(where, "an integer", value)
    return int(value)


def _count(value: Any, where: str) -> int:
    value = _integer(value, where)
    if value < 0:
        _fail(where, "an integer ≥ 0", value)
    return value


def _optional_count(value: Any, where: str) -> int | None:
    return None if value is None else _count(value, where)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        _fail(where, "a finite number", value)
    value = float(value)
    if not math.isfinite(value):
        _fail(where, "a finite number", value)
    return value


def _positive(value: Any, where: str) -> float:
    value = _number(value, where)
    if value <= 0.0:
        _fail(where, "a number > 0", value)
    return value


def _nonzero(value: Any, where: str) -> float:
    value = _number(value, where)
    if value == 0.0:
        _fail(where, "a number ≠ 0", value)
    return value


# Physical ranges: a value outside them is damage (or an edit), never a measurement.  They
# are wide — every scope, probe and drive charz could meet is inside — and they keep a
# damaged archive from hanging the analysis (a 1e15-byte "request" is walked page by page)
# or overflowing it (y_mult 1e300 makes every current infinite).
MAX_REQUEST_BYTES = 1 << 30  # one O_DIRECT request; charz's sweeps stop at 512 KiB
MAX_OFFSET_BYTES = 1 << 54  # 16 PiB: beyond any drive
MAX_Y_MULT = 1e3  # SI units per ADC code: 1 kA (or kV) per code is beyond any probe and scope
MAX_Y_LEVEL = 1e6  # |y_zero| (SI) and |y_offset_codes| (codes): an int16 spans ±32768
SAMPLE_INTERVAL_RANGE_S = (1e-12, 10.0)  # 1 THz to one sample per 10 s
MAX_TIME_S = 1e6  # |t_first_sample_s|: about 11 days either side of the reference
MAX_REPEAT = 1_000_000


def _at_most(limit: float, unit: str = "", *, check: Callable[[Any, str], Any] = None) -> Callable[[Any, str], Any]:
    """``check`` (default :func:`_number`), then |value| ≤ ``limit``."""
    check = check or _number

    def bounded(value: Any, where: str) -> Any:
        value = check(value, where)
        if abs(value) > limit:
            _fail(where, f"within ±{limit:g}{unit} (a physical range; this is damage or an edit)", value)
        return value
    return bounded


def _scale(value: Any, where: str) -> float:
    value = _nonzero(value, where)
    if not 1e-15 <= abs(value) <= MAX_Y_MULT:
        _fail(where, f"within 1e-15 … {MAX_Y_MULT:g} units per code in magnitude (a physical range)", value)
    return value


def _interval(value: Any, where: str) -> float:
    value = _positive(value, where)
    lo, hi = SAMPLE_INTERVAL_RANGE_S
    if not lo <= value <= hi:
        _fail(where, f"within {lo:g} … {hi:g} s (a physical range)", value)
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        _fail(where, "a non-empty string", value)
    return value


def _one_of(*choices: str) -> Callable[[Any, str], str]:
    def check(value: Any, where: str) -> str:
        # isinstance first: `in` on an ndarray would raise instead of answering.
        if not isinstance(value, str) or value not in choices:
            _fail(where, " or ".join(repr(c) for c in choices), value)
        return value

    return check


def _texts(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        _fail(where, "a list of strings", value)
    return tuple(value)


def _json_object(value: Any, where: str) -> dict:
    if not isinstance(value, Mapping):
        _fail(where, "a JSON object (dict)", value)
    # The round trip both proves the value serialisable and gives back exactly
    # what a reader will see (tuples become lists, int keys become strings).
    try:
        return json.loads(json.dumps(dict(value), allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise FormatError(f"{where} must hold only JSON values (no NaN): {exc}") from None


def _sha256(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        _fail(where, "64 lower-case hex digits", value)
    return value


def _channel_name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _CHANNEL_NAME.fullmatch(value):
        _fail(where, "lower-case letters, digits and '_', starting with a letter, ≤ 32 long", value)
    return value


def _dtype_name(value: Any, where: str) -> str:
    return _one_of(*DTYPES)(value, where)


def _schema(expected: str) -> Callable[[Any, str], str]:
    family, version = expected.split("/")

    def check(value: Any, where: str) -> str:
        match = _SCHEMA.fullmatch(value) if isinstance(value, str) else None
        if match is None or match.group(1) != family:
            _fail(where, repr(expected), value)
        if int(match.group(2)) > int(version):
            raise UnsupportedVersion(
                f"{where} is {value!r}, newer than {expected!r}, the newest this charz reads"
            )
        if int(match.group(2)) < 1:
            _fail(where, repr(expected), value)
        return value

    return check


def _tool(value: Any, where: str) -> dict:
    value = _json_object(value, where)
    for key in ("name", "version"):
        _text(value.get(key), f"{where}.{key}")
    return value


def _list(value: Any, where: str) -> list:
    if not isinstance(value, list):
        _fail(where, "a JSON array", value)
    return value


# ---------------------------------------------------------------------------
# the field tables: one definition for validation and for docs/archive.md


@dataclass(frozen=True)
class _Field:
    name: str
    json_type: str
    meaning: str
    check: Callable[[Any, str], Any]


SESSION_FIELDS = (
    _Field("schema", "string", f'`"{SESSION_SCHEMA}"`: format and major version', _schema(SESSION_SCHEMA)),
    _Field("created_utc", "string", "when the session was created, ISO 8601 UTC (`2026-01-31T12:00:00.000000Z`)", _text),
    _Field("tool", "object", '`{"name": "charz", "version": "0.1.0"}`: what wrote the archive', _tool),
    _Field("drive", "object", "identity and settings of the drive under test (free form, set by the session)", _json_object),
    _Field("bench", "object", "scope, probe, host ... (free form, set by the session)", _json_object),
    _Field("plan", "object", "the sweep plan the captures' `step` refers to (free form)", _json_object),
)

SCALING_FIELDS = (
    _Field("y_mult", "number, magnitude 1e-15 … 1e3", "SI units per ADC code", _scale),
    _Field("y_offset_codes", "number within ±1e6", "the code subtracted first (may be fractional)",
           _at_most(MAX_Y_LEVEL)),
    _Field("y_zero", "number within ±1e6", "SI value added last", _at_most(MAX_Y_LEVEL)),
    _Field("unit", '`"A"` or `"V"`', "unit of `value = (code - y_offset_codes) * y_mult + y_zero`", _one_of(*UNITS)),
)

CHANNEL_FIELDS = (
    _Field("name", "string", "`[a-z][a-z0-9_]{0,31}`, unique in the capture (`current`, `voltage`)", _channel_name),
    _Field("file", "string", "`NNNNNN.<name>.npy` in `captures/`; nothing else is allowed", _text),
    _Field("dtype", '`"int8"` or `"int16"`', "dtype of the codes in the file (int16 little-endian)", _dtype_name),
    _Field("n_samples", "integer ≥ 0", "length of the 1-D array; equal for all channels of a capture", _count),
    _Field("file_bytes", "integer ≥ 0", "size of the .npy file, header included", _count),
    _Field("sha256", "string", "SHA-256 of the whole .npy file, 64 lower-case hex digits", _sha256),
    _Field("scaling", "object", "codes → SI units, see the scaling table", lambda v, w: _parse_object(v, SCALING_FIELDS, w)),
    _Field("source", "string", 'where the scope took it from (`"CH1"`, `"MATH1"`, `"sim"`)', _text),
    _Field("code_min", "integer", "lowest code the ADC can produce; a sample there may be clipped", _integer),
    _Field("code_max", "integer", "highest code the ADC can produce; a sample there may be clipped", _integer),
)

PLAN_STEP_FIELDS = (
    _Field("id", "integer ≥ 0", "the step's id, which captures name in `step`", _count),
    _Field("op", '`"write"`, `"read"`, `"idle"` or `"fill"`', "what the step does (a fill is not captured)",
           _one_of(*PLAN_OPS)),
    _Field("size_bytes", "integer, 0 … 2^54", "request size (a fill: the region it writes)",
           _at_most(MAX_OFFSET_BYTES, " B", check=_count)),
    _Field("offset_bytes", "integer, 0 … 2^54", "request offset on the device",
           _at_most(MAX_OFFSET_BYTES, " B", check=_count)),
)

CAPTURE_FIELDS = (
    _Field("schema", "string", f'`"{CAPTURE_SCHEMA}"`: format and major version of this record', _schema(CAPTURE_SCHEMA)),
    _Field("index", "integer ≥ 0", "position in the session; equals the number in the file name", _count),
    _Field("step", "integer ≥ 0 or null", "id of the plan step that asked for this capture", _optional_count),
    _Field("op", "string", '`"write"`, `"read"` or `"idle"`', _one_of(*CAPTURE_OPS)),
    _Field("size_bytes", "integer, 0 … 2^30", "request size", _at_most(MAX_REQUEST_BYTES, " B", check=_count)),
    _Field("offset_bytes", "integer, 0 … 2^54", "request offset on the device",
           _at_most(MAX_OFFSET_BYTES, " B", check=_count)),
    _Field("repeat", "integer, 0 … 1e6", "repetition of this step, 0 first", _at_most(MAX_REPEAT, check=_count)),
    _Field("sample_interval_s", "number, 1e-12 … 10", "time between two samples", _interval),
    _Field("t_first_sample_s", "number within ±1e6", "time of sample 0 relative to `time_reference` (negative: "
           "before it)", _at_most(MAX_TIME_S, " s")),
    _Field(
        "time_reference", '`"request"` or `"trigger"`',
        "what t = 0 is: the host issuing the request, or the scope's trigger", _one_of(*TIME_REFERENCES),
    ),
    _Field("channels", "array of objects", "one per recorded channel, at least one; see the channel table", _list),
    _Field("warnings", "array of strings", "anything the capture should be read with (clipping, retries ...)", _texts),
    _Field("host", "object", "host-side facts, free form (e.g. `t_request_ns`, `t_complete_ns`)", _json_object),
    _Field("extra", "object", "anything else, free form", _json_object),
)


def _parse_object(value: Any, specs: Sequence[_Field], where: str) -> dict[str, Any]:
    """Check a JSON object against a field table; unknown keys are ignored."""
    if not isinstance(value, dict):
        _fail(where, "a JSON object", value)
    out = {}
    for spec in specs:
        if spec.name not in value:
            raise FormatError(f"{where} has no {spec.name!r}")
        out[spec.name] = spec.check(value[spec.name], f"{where}.{spec.name}")
    return out


def _check_limits(code_min: int, code_max: int, dtype: np.dtype, where: str) -> None:
    info = np.iinfo(dtype)
    if not info.min <= code_min < code_max <= info.max:
        raise FormatError(
            f"{where}: need {info.min} ≤ code_min < code_max ≤ {info.max} for {dtype.name}, "
            f"got code_min={code_min}, code_max={code_max}"
        )


# ---------------------------------------------------------------------------
# the public dataclasses


def _check_scaling(w: Waveform, where: str) -> None:
    """The waveform's scaling within the format's physical ranges (the ``scaling`` table)."""
    for spec in SCALING_FIELDS:
        spec.check(getattr(w, spec.name), f"{where}.scaling.{spec.name}")


@dataclass(frozen=True)
class Channel:
    """One channel of a capture: a name and its :class:`~charz.waveform.Waveform`.

    The waveform's codes (a 1-D int8 or int16 array) are stored bit for bit; its
    ``code_min`` and ``code_max`` are the ADC's limits (e.g. -128 and 127 for an 8-bit
    record), so that clipping can be judged later; codes outside them are stored anyway.
    The archive's rules (the channel and scaling tables) are checked here.

    Examples
    --------
    >>> w = Waveform(np.array([0, 50, 127], dtype=np.int8), 0.002, 0, 0.0, 1e-6, 0.0,
    ...              unit="A", source="CH1", code_min=-128, code_max=127)
    >>> ch = Channel("current", w)
    >>> ch.waveform.values().tolist(), ch.waveform.clipped
    ([0.0, 0.1, 0.254], True)
    """

    name: str
    waveform: Waveform

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _channel_name(self.name, "channel.name"))
        w = self.waveform
        if not isinstance(w, Waveform):
            raise FormatError(f"channel {self.name!r}: waveform must be a charz.waveform.Waveform, got {w!r:.80}")
        codes = w.codes
        if codes.dtype.name not in DTYPES:
            raise FormatError(f"channel {self.name!r}: codes must be a 1-D int8 or int16 ndarray, got {codes.dtype}{codes.shape}")
        where = f"channel {self.name!r}"
        _check_scaling(w, where)
        _text(w.source, f"{where}: source")
        for attr in ("code_min", "code_max"):
            _integer(getattr(w, attr), f"{where}: {attr}")
        _check_limits(w.code_min, w.code_max, codes.dtype, where)

    __hash__ = None  # type: ignore[assignment]  # arrays are not hashable

    @property
    def n_samples(self) -> int:
        return self.waveform.n_samples


@dataclass(frozen=True, kw_only=True)
class Capture:
    """One record taken around one host request (or while idle).

    Keyword-only: eleven positional values would be too easy to swap.
    ``index`` is ``None`` until the writer assigns it.  All channels share one time
    axis, their waveforms' ``t_first_s + i * sample_interval_s`` (seconds relative to
    ``time_reference``), stored once in the record as ``sample_interval_s`` and
    ``t_first_sample_s``.

    Examples
    --------
    >>> w = Waveform(np.zeros(4, dtype=np.int16), 1e-4, 0, 0.0, 2e-6, -2e-6,
    ...              unit="A", source="CH1", code_min=-32768, code_max=32767)
    >>> cap = Capture(step=3, op="write", size_bytes=32768, offset_bytes=0, repeat=0,
    ...               time_reference="request", channels=[Channel("current", w)])
    >>> (cap.time_s() * 1e6).round(3).tolist()     # µs
    [-2.0, 0.0, 2.0, 4.0]
    >>> cap.channel("current").n_samples
    4
    """

    index: int | None = None
    step: int | None
    op: str
    size_bytes: int
    offset_bytes: int
    repeat: int
    time_reference: str
    channels: tuple[Channel, ...]
    warnings: tuple[str, ...] = ()
    host: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.index is not None:
            object.__setattr__(self, "index", _count(self.index, "capture.index"))
        own = {f.name for f in fields(self)} - {"index", "channels"}
        for spec in CAPTURE_FIELDS:
            if spec.name in own:
                object.__setattr__(self, spec.name, spec.check(getattr(self, spec.name), f"capture.{spec.name}"))
        channels = self.channels
        if isinstance(channels, Channel) or not isinstance(channels, (list, tuple)):
            _fail("capture.channels", "a list of Channel", channels)
        channels = tuple(channels)
        if not channels or not all(isinstance(c, Channel) for c in channels):
            _fail("capture.channels", "a non-empty list of Channel", channels)
        _check_channel_set([c.name for c in channels], [c.n_samples for c in channels], "capture")
        axes = {(c.waveform.sample_interval_s, c.waveform.t_first_s) for c in channels}
        if len(axes) > 1:
            raise FormatError(f"capture: all channels must share one time axis, got {sorted(axes)}")
        object.__setattr__(self, "channels", channels)
        for spec in CAPTURE_FIELDS:  # the shared time axis, as the record stores it
            if spec.name in ("sample_interval_s", "t_first_sample_s"):
                spec.check(getattr(self, spec.name), f"capture.{spec.name}")

    __hash__ = None  # type: ignore[assignment]  # holds dicts and arrays

    @property
    def sample_interval_s(self) -> float:
        return self.channels[0].waveform.sample_interval_s

    @property
    def t_first_sample_s(self) -> float:
        return self.channels[0].waveform.t_first_s

    @property
    def n_samples(self) -> int:
        return self.channels[0].n_samples

    def channel(self, name: str) -> Channel:
        """The channel called ``name``; KeyError lists the ones there are."""
        for ch in self.channels:
            if ch.name == name:
                return ch
        raise KeyError(f"capture {self.index} has no channel {name!r}; it has {[c.name for c in self.channels]}")

    def time_s(self) -> np.ndarray:
        """Sample times in seconds relative to ``time_reference``."""
        return self.channels[0].waveform.times_s()


def _check_channel_set(names: Sequence[str], lengths: Sequence[int], where: str) -> None:
    if len(set(names)) != len(names):
        raise FormatError(f"{where}: channel names must be unique, got {list(names)}")
    if len(set(lengths)) > 1:
        raise FormatError(f"{where}: all channels must have the same number of samples, got {list(lengths)}")


@dataclass(frozen=True)
class ChannelFile:
    """Where one channel's codes are stored and how to verify them."""

    name: str
    file: str
    dtype: str
    n_samples: int
    file_bytes: int
    sha256: str

    @property
    def np_dtype(self) -> np.dtype:
        return DTYPES[self.dtype]


# ---------------------------------------------------------------------------
# file names


def capture_file_name(index: int) -> str:
    """``000012.json``; six digits and more beyond 999999."""
    return f"{index:06d}.json"


def channel_file_name(index: int, name: str) -> str:
    return f"{index:06d}.{name}.npy"


def parse_capture_file_name(name: str) -> int | None:
    """The index of a commit record's file name, or None if it is not one.

    Names that look like one but are not canonical (``12.json``) also give
    their index so that the reader can report them instead of skipping them.
    """
    match = _CAPTURE_FILE.fullmatch(name)
    return int(match.group(1)) if match else None


def parse_channel_file_name(name: str) -> tuple[int, str] | None:
    match = _CHANNEL_FILE.fullmatch(name)
    return (int(match.group(1)), match.group(2)) if match else None


# ---------------------------------------------------------------------------
# session.json


def new_session(metadata: Mapping[str, Any], *, created_utc: str, tool_version: str) -> dict:
    """The content of a new ``session.json``.

    Examples
    --------
    >>> d = new_session({"drive": {"model": "X"}}, created_utc="2026-01-01T00:00:00Z", tool_version="0.1.0")
    >>> d["schema"], d["plan"], d["tool"]["name"]
    ('charz.archive/1', {}, 'charz')
    """
    metadata = _caller_metadata(metadata)
    session = {
        "schema": SESSION_SCHEMA,
        "created_utc": created_utc,
        "tool": {"name": "charz", "version": tool_version},
        **{key: {} for key in METADATA_SECTIONS},
        **metadata,
    }
    return validate_session(session)


def updated_session(session: Mapping[str, Any], changes: Mapping[str, Any]) -> dict:
    """``session`` with top-level keys replaced by ``changes`` (reserved keys refused)."""
    return validate_session({**session, **_caller_metadata(changes)})


def validate_session(value: Any) -> dict:
    """Check the content of ``session.json``; returns a normalised copy."""
    checked = _parse_object(value, SESSION_FIELDS, "session")
    rest = _json_object({k: v for k, v in value.items() if k not in checked}, "session")
    _check_given(checked)
    plan_steps(checked["plan"])
    return {**checked, **rest}


def plan_steps(plan: Mapping[str, Any]) -> dict[int, dict]:
    """The plan's steps by id, each checked (op, size, offset within physical ranges); {}
    when the plan lists no step objects (a plan is free form, but steps are what captures name).

    >>> plan_steps({"steps": [{"id": 0, "op": "write", "size_bytes": 4096, "offset_bytes": 0}]})[0]["op"]
    'write'
    >>> try:
    ...     plan_steps({"steps": [{"id": 0, "op": "trim", "size_bytes": 4096, "offset_bytes": 0}]})
    ... except FormatError as exc:
    ...     print(exc)
    plan.steps[0].op must be 'write' or 'read' or 'idle' or 'fill', got 'trim'
    """
    if isinstance(plan, Mapping):
        # charz's own sweep plan: sizes resume allocates a request buffer for, spans it writes
        for key, limit in (("write_sizes", MAX_REQUEST_BYTES), ("read_sizes", MAX_REQUEST_BYTES)):
            if isinstance(plan.get(key), list):
                for i, size in enumerate(plan[key]):
                    _at_most(limit, " B", check=_count)(size, f"plan.{key}[{i}]")
        for key in ("stride_bytes", "span_bytes"):
            if key in plan:
                _at_most(MAX_OFFSET_BYTES, " B", check=_count)(plan[key], f"plan.{key}")
        if "repeats" in plan:
            _at_most(MAX_REPEAT, check=_count)(plan["repeats"], "plan.repeats")
    steps = plan.get("steps") if isinstance(plan, Mapping) else None
    if not isinstance(steps, list) or not any(isinstance(s, Mapping) for s in steps):
        return {}  # a plan in another form than charz's steps (the plan is free form)
    out: dict[int, dict] = {}
    for i, step in enumerate(steps):
        where = f"plan.steps[{i}]"
        checked = _parse_object(step, PLAN_STEP_FIELDS, where)
        if checked["id"] in out:
            _fail(f"{where}.id", "unique in the plan", checked["id"])
        if checked["op"] != "fill" and checked["size_bytes"] > MAX_REQUEST_BYTES:
            _fail(f"{where}.size_bytes", f"at most {MAX_REQUEST_BYTES} B (one request)", checked["size_bytes"])
        out[checked["id"]] = checked
    return out


def check_against_plan(capture: Mapping[str, Any], steps: Mapping[int, dict], where: str) -> None:
    """A capture names a step of the plan, and is what that step asked for (op and size)."""
    if not steps or capture.get("step") is None:
        return
    step = steps.get(capture["step"])
    if step is None:
        _fail(f"{where}.step", f"a step of the session's plan (ids {min(steps)} … {max(steps)})", capture["step"])
    for key in ("op", "size_bytes"):
        if capture.get(key) != step[key]:
            _fail(f"{where}.{key}", f"{step[key]!r}, as plan step {capture['step']} asks", capture.get(key))


def _check_given(session: dict) -> None:
    """The user's values about the drive and the bench, within physical ranges."""
    try:
        given = (session.get("drive") or {}).get("given")
        if given is not None:
            check_given(given, where="")
        rail = (session.get("bench") or {}).get("rail_v")
        if rail is not None:
            check_rail_v(rail, where="")
    except ValueError as exc:
        raise FormatError(str(exc)) from None


def _caller_metadata(metadata: Any) -> dict:
    if not isinstance(metadata, Mapping):
        _fail("metadata", "a dict", metadata)
    reserved = sorted(set(metadata) & set(RESERVED_METADATA))
    if reserved:
        raise FormatError(f"metadata keys {reserved} are set by the archive itself")
    if not all(isinstance(k, str) for k in metadata):
        _fail("metadata", "a dict with string keys", metadata)
    return dict(metadata)


# ---------------------------------------------------------------------------
# captures/NNNNNN.json


def capture_to_dict(capture: Capture, files: Sequence[ChannelFile]) -> dict:
    """The commit record of ``capture`` whose channels were stored as ``files``.

    ``files`` is in the order of ``capture.channels``.
    """
    if capture.index is None:
        raise FormatError("capture.index must be set before the capture is stored")
    if [f.name for f in files] != [c.name for c in capture.channels]:
        raise FormatError("files must describe capture.channels, in order")
    channels = []
    for ch, f in zip(capture.channels, files):
        w = ch.waveform
        _check_codes(w.codes, f, f"capture {capture.index}")
        channels.append(
            {
                "name": ch.name,
                "file": f.file,
                "dtype": f.dtype,
                "n_samples": f.n_samples,
                "file_bytes": f.file_bytes,
                "sha256": f.sha256,
                "scaling": {spec.name: getattr(w, spec.name) for spec in SCALING_FIELDS},
                "source": w.source,
                "code_min": w.code_min,
                "code_max": w.code_max,
            }
        )
    record = {"schema": CAPTURE_SCHEMA}
    for spec in CAPTURE_FIELDS[1:]:
        value = channels if spec.name == "channels" else getattr(capture, spec.name)
        record[spec.name] = list(value) if isinstance(value, tuple) else value
    capture_files(record)  # never write what the reader would refuse
    return record


def capture_files(record: Any) -> tuple[int, tuple[ChannelFile, ...]]:
    """Validate a commit record; its index and where its channels are stored.

    Checks everything that can be checked without the channel files.
    """
    head = _parse_object(record, CAPTURE_FIELDS, "capture")
    index = head["index"]
    files = []
    for i, raw in enumerate(head["channels"]):
        where = f"capture.channels[{i}]"
        ch = _parse_object(raw, CHANNEL_FIELDS, where)
        expected_file = channel_file_name(index, ch["name"])
        if ch["file"] != expected_file:
            _fail(f"{where}.file", repr(expected_file), ch["file"])
        _check_limits(ch["code_min"], ch["code_max"], DTYPES[ch["dtype"]], where)
        files.append(ChannelFile(ch["name"], ch["file"], ch["dtype"], ch["n_samples"], ch["file_bytes"], ch["sha256"]))
    if not files:
        _fail("capture.channels", "a non-empty array", head["channels"])
    _check_channel_set([f.name for f in files], [f.n_samples for f in files], "capture")
    return index, tuple(files)


def capture_from_dict(record: Any, codes: Mapping[str, np.ndarray]) -> Capture:
    """The capture described by a commit record, with the codes loaded for it.

    ``codes`` maps each channel name to its array, as read from its file.
    """
    index, files = capture_files(record)
    channels = []
    for raw, f in zip(record["channels"], files):
        if f.name not in codes:
            raise FormatError(f"no codes given for channel {f.name!r}")
        _check_codes(codes[f.name], f, f"capture {index}")
        ch = _parse_object(raw, CHANNEL_FIELDS, "channel")
        sc = ch["scaling"]
        waveform = Waveform(
            codes[f.name], sc["y_mult"], sc["y_offset_codes"], sc["y_zero"], record["sample_interval_s"],
            record["t_first_sample_s"], unit=sc["unit"], source=ch["source"], code_min=ch["code_min"],
            code_max=ch["code_max"],
        )
        channels.append(Channel(f.name, waveform))
    time_axis = ("schema", "channels", "sample_interval_s", "t_first_sample_s")  # the waveforms hold it
    kwargs = {spec.name: record[spec.name] for spec in CAPTURE_FIELDS if spec.name not in time_axis}
    return Capture(**kwargs, channels=channels)


def _check_codes(codes: np.ndarray, f: ChannelFile, where: str) -> None:
    if codes.dtype.name != f.dtype or codes.shape != (f.n_samples,):
        raise FormatError(
            f"{where}: channel {f.name!r} is {codes.dtype.name}{list(codes.shape)}, "
            f"its record says {f.dtype}[{f.n_samples}]"
        )


# ---------------------------------------------------------------------------
# the documentation's tables


def field_table(specs: Sequence[_Field]) -> str:
    """A markdown table of a field table: field, JSON type, meaning."""
    lines = ["| field | JSON type | meaning |", "|---|---|---|"]
    lines += [f"| `{s.name}` | {s.json_type} | {s.meaning} |" for s in specs]
    return "\n".join(lines)


_DOC_TABLES = {
    "session": SESSION_FIELDS,
    "plan_step": PLAN_STEP_FIELDS,
    "capture": CAPTURE_FIELDS,
    "channel": CHANNEL_FIELDS,
    "scaling": SCALING_FIELDS,
}


def render_doc_tables(text: str) -> str:
    """``text`` with each ``<!-- BEGIN fields:NAME -->`` … ``<!-- END fields:NAME -->`` block regenerated."""
    for name, specs in _DOC_TABLES.items():
        begin, end = f"<!-- BEGIN fields:{name} -->", f"<!-- END fields:{name} -->"
        if text.count(begin) != 1 or text.count(end) != 1:
            raise ValueError(f"the document needs exactly one {begin} … {end} block")
        head, rest = text.split(begin)
        _, tail = rest.split(end)
        text = f"{head}{begin}\n{field_table(specs)}\n{end}{tail}"
    return text
