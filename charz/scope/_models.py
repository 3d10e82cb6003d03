"""Oscilloscope model limits as data: ``instruments/*.toml`` read into frozen dataclasses.

The drivers validate requested settings against a :class:`ScopeModel`, and the mock
scope imitates one, so both agree on what a DPO3000 offers without either hard-coding
it.  The files live in the repository's top-level ``instruments/`` folder (see its
README for the keys).

Example
-------
>>> m = load_model("tek_dpo3000")
>>> m.family, m.record_lengths[:3]
('tek_dpo', (1000, 10000, 100000))
>>> m.matches("TEKTRONIX", "DPO3014")
True
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from charz.errors import UsageError

__all__ = ["ScopeModel", "Timing", "load_model", "load_models", "find_model", "default_models_dir"]

# tek_tds: TDS1000/2000, TPS2000, TBS1000 — the mock plays them for public clients; charz
# has no driver for them (their records are 2500 points, fixed; a session takes 10 000).
# tek_dpo7k: MSO/DPO5000, DPO7000, DPO70000 — mock only too (for QCoDeS' DPO7000xx driver).
_FAMILIES = ("tek_dpo", "tek_mso", "keysight_infiniivision", "tek_tds", "tek_dpo7k")
_PREAMBLES = ("dpo3000", "mdo", "mso", "keysight", "tds2000")


def default_models_dir() -> Path:
    """The repository's ``instruments/`` folder (next to the ``charz`` package).

    Example
    -------
    >>> default_models_dir().name
    'instruments'
    """
    return Path(__file__).resolve().parents[1] / "_data" / "instruments"


@dataclass(frozen=True)
class Timing:
    """What a real scope of the family spends per command and per acquisition (the mock's
    ``--realtime`` model; each file's ``[timing]`` table says where each figure comes from).

    Example
    -------
    >>> t = load_model("tek_dpo3000").timing
    >>> t.query_s > 0 and t.transfer_bytes_per_s > 0
    True
    """

    command_s: float = 0.0  # a command without a reply: parsed and executed
    query_s: float = 0.0  # a query: until its answer leaves the scope
    arm_s: float = 0.0  # ACQuire:STATE RUN / :SINGle until ready to trigger (beyond the pre-trigger fill)
    processing_s: float = 0.0  # end of the record window until the record can be read
    transfer_bytes_per_s: float = math.inf  # a waveform block's payload over the link
    link: str = ""  # the interface the figures are for

    def transfer_s(self, n_bytes: int) -> float:
        return n_bytes / self.transfer_bytes_per_s


@dataclass(frozen=True)
class ScopeModel:
    """Limits of one oscilloscope family, from its TOML file.

    Example
    -------
    >>> load_model("keysight_dsox3000").vertical_divisions
    8
    """

    name: str
    family: str
    manufacturers: tuple[str, ...]
    model_pattern: str
    example_idn: str
    channels: int
    adc_bits: int
    codes_per_div: float
    vertical_divisions: int
    vertical_scale_min: float
    vertical_scale_max: float
    record_lengths: tuple[int, ...]
    horizontal: str
    horizontal_scale_mantissas: tuple[float, ...]
    horizontal_scale_min_s: float
    horizontal_scale_max_s: float
    max_sample_rate_hz: float
    encodings: tuple[str, ...]
    widths: tuple[int, ...]
    preamble: str
    ascii_max_points: int
    sample_rate_mantissas: tuple[float, ...] = ()
    sample_rate_min_hz: float = 0.0
    memory_depths: tuple[int, ...] = ()
    timing: Timing = Timing()
    path: str = ""

    def matches(self, manufacturer: str, model: str) -> bool:
        """Does an ``*IDN?`` manufacturer/model pair belong to this family?"""
        maker = manufacturer.strip().upper()
        return any(maker == m.upper() for m in self.manufacturers) and bool(
            re.match(self.model_pattern, model.strip())
        )

    def is_horizontal_scale(self, scale_s: float) -> bool:
        """Is ``scale_s`` (s/div) one of the model's timebase steps?"""
        if not (self.horizontal_scale_min_s * (1 - 1e-9) <= scale_s
                <= self.horizontal_scale_max_s * (1 + 1e-9)):
            return False
        return _in_sequence(scale_s, self.horizontal_scale_mantissas)

    def is_sample_rate(self, rate_hz: float) -> bool:
        """Is ``rate_hz`` a settable rate (``manual`` horizontal mode only)?"""
        if not (self.sample_rate_min_hz * (1 - 1e-9) <= rate_hz
                <= self.max_sample_rate_hz * (1 + 1e-9)):
            return False
        return _in_sequence(rate_hz, self.sample_rate_mantissas)

    def code_limits(self, width_bytes: int) -> tuple[int, int]:
        """Lowest and highest code a ``width_bytes`` signed transfer can carry.

        An ADC of ``b`` bits delivers ``b`` significant bits left-aligned in the transfer
        word (Tek: the 8-bit value in the high byte of a 16-bit word).

        Example
        -------
        >>> load_model("tek_dpo3000").code_limits(2)
        (-32768, 32512)
        """
        bits = 8 * width_bytes
        used = min(self.adc_bits, bits)
        shift = bits - used
        return -(1 << (used - 1)) << shift, ((1 << (used - 1)) - 1) << shift


def _in_sequence(x: float, mantissas: tuple[float, ...]) -> bool:
    if x <= 0 or not mantissas:
        return False
    decade = math.floor(math.log10(x))
    for d in (decade - 1, decade, decade + 1):
        for m in mantissas:
            if math.isclose(x, m * 10.0**d, rel_tol=1e-6):
                return True
    return False


def _bad_file(path: Path, message: str) -> UsageError:
    return UsageError(
        f"{path}: {message}",
        hint="fix the instrument description (keys are explained in instruments/README.md)",
    )


def _load(path: Path) -> ScopeModel:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise _bad_file(path, f"cannot be read ({exc})") from exc
    if data.get("schema") != 1:
        raise _bad_file(path, f"unknown schema {data.get('schema')!r} (expected 1)")
    tuples = ("manufacturers", "record_lengths", "horizontal_scale_mantissas", "encodings",
              "widths", "sample_rate_mantissas", "memory_depths")
    fields = {k: v for k, v in data.items() if k != "schema"}
    for key in tuples:
        if key in fields:
            fields[key] = tuple(fields[key])
    if "timing" in fields:
        try:
            fields["timing"] = Timing(**fields["timing"])
        except TypeError as exc:
            raise _bad_file(path, f"[timing] has unknown keys ({exc})") from exc
        t = fields["timing"]
        if min(t.command_s, t.query_s, t.arm_s, t.processing_s) < 0 or not t.transfer_bytes_per_s > 0:
            raise _bad_file(path, "[timing] durations must be >= 0 and transfer_bytes_per_s > 0")
    try:
        model = ScopeModel(name=path.stem, path=str(path), **fields)
    except TypeError as exc:
        raise _bad_file(path, f"has missing or unknown keys ({exc})") from exc
    if model.family not in _FAMILIES:
        raise _bad_file(path, f"family {model.family!r} is not one of {', '.join(_FAMILIES)}")
    if model.preamble not in _PREAMBLES:
        raise _bad_file(path, f"preamble {model.preamble!r} is not one of {', '.join(_PREAMBLES)}")
    if model.horizontal not in ("derived", "manual"):
        raise _bad_file(path, "horizontal must be 'derived' or 'manual'")
    if model.horizontal == "manual" and not model.sample_rate_mantissas:
        raise _bad_file(path, "a 'manual' horizontal needs sample_rate_mantissas")
    if not model.record_lengths or list(model.record_lengths) != sorted(model.record_lengths):
        raise _bad_file(path, "record_lengths must be a non-empty ascending list")
    try:
        re.compile(model.model_pattern)
    except re.error as exc:
        raise _bad_file(path, f"model_pattern is not a regex ({exc})") from exc
    return model


def load_model(name: str, directory: Path | str | None = None) -> ScopeModel:
    """Load ``<directory>/<name>.toml`` (default: the repository's ``instruments/``).

    Example
    -------
    >>> load_model("tek_mso5").horizontal
    'manual'
    """
    folder = Path(directory) if directory is not None else default_models_dir()
    path = folder / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in folder.glob("*.toml"))) or "none"
        raise UsageError(f"no instrument description {path}", hint=f"known models: {known}")
    return _load(path)


def load_models(directory: Path | str | None = None) -> tuple[ScopeModel, ...]:
    """All instrument descriptions in ``directory``, sorted by name.

    Example
    -------
    >>> "tek_mdo3000" in [m.name for m in load_models()]
    True
    """
    folder = Path(directory) if directory is not None else default_models_dir()
    return tuple(_load(p) for p in sorted(folder.glob("*.toml")))


def find_model(manufacturer: str, model: str, models: tuple[ScopeModel, ...]) -> ScopeModel | None:
    """The first description whose manufacturer and model pattern match, else None.

    Example
    -------
    >>> find_model("TEKTRONIX", "MDO3024", load_models()).name
    'tek_mdo3000'
    """
    for m in models:
        if m.matches(manufacturer, model):
            return m
    return None


def position_div(divisions: int) -> float:
    """Zero amperes one division above the bottom of a screen of ``divisions`` (8 on InfiniiVision).

    >>> position_div(10), position_div(8)
    (-4.0, -3.0)
    """
    return -(divisions / 2.0 - 1.0)


def screen_divisions(scope) -> int:
    """Vertical divisions of ``scope``'s screen (its model's, else a Tek's 10)."""
    return int(getattr(getattr(scope, "model", None), "vertical_divisions", 0) or 10)


def screen_position_div(scope) -> float:
    """:func:`position_div` for ``scope``'s own screen.

    Autoset, the capture loop and validate's averaging all use it: a scale chosen for zero
    at one division above the bottom is only right if every capture puts zero there too,
    and a Tek's -4 divisions is an InfiniiVision's bottom edge, where idle noise clips.
    """
    return position_div(screen_divisions(scope))
