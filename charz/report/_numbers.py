"""Profile numbers as text a person reads: sizes, times, currents, undetermined results.

Pure string functions; the figures and the HTML page both use them so a number
reads the same in a caption, an annotation and the results table.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["RESULT_LABELS", "format_given", "format_quantity", "ordered_result_keys", "size_label"]

# The order a reader meets the results in: the paper's chain (steps → Eq. 1/2 → allocation),
# then the timing and currents that support it.  Keys not listed follow in file order.
RESULT_LABELS = {
    "n_step": "steps of peak current (N_step)",
    "step_pages": "step width (D_step)",
    "dies_per_package": "dies per package (N_die, Eq. 1)",
    "packages_per_unit": "packages per I/O unit",
    "write_io_unit_bytes": "write I/O unit (Eq. 2)",
    "read_io_unit_bytes": "read I/O unit",
    "allocation_scheme": "page allocation scheme",
    "t_xfer_page_s": "register transfer per page",
    "t_switch_s": "channel switch delay",
    "t_prog_s": "page program time",
    "idle_a": "idle current",
    "m_peak_a": "m_peak (one unit programming)",
    "M_peak_a": "M_peak (all packages programming)",
}


def ordered_result_keys(results: Mapping[str, Any]) -> list[str]:
    """The result keys of a profile in reading order.

    Examples
    --------
    >>> ordered_result_keys({"idle_a": {}, "zeta": {}, "n_step": {}})
    ['n_step', 'idle_a', 'zeta']
    """
    known = [k for k in RESULT_LABELS if k in results]
    return known + [k for k in results if k not in RESULT_LABELS]


def size_label(size_bytes: float) -> str:
    """A byte count in the units a storage reader expects (binary prefixes, as 003's "KB").

    Examples
    --------
    >>> size_label(4096), size_label(36864), size_label(524288), size_label(1 << 20), size_label(1000)
    ('4 KiB', '36 KiB', '512 KiB', '1 MiB', '1000 B')
    """
    size_bytes = float(size_bytes)
    for shift, prefix in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        scaled = size_bytes / (1 << shift)
        if scaled >= 1 and scaled == round(scaled, 2):
            return f"{scaled:g} {prefix}"
    return f"{size_bytes:g} B"


def _with_uncertainty(value: float, uncertainty: Any, scale: float, unit: str, digits: int) -> str:
    text = f"{value * scale:.{digits}f} {unit}"
    if isinstance(uncertainty, (int, float)) and uncertainty > 0:
        text = f"{value * scale:.{digits}f} ± {uncertainty * scale:.{digits}f} {unit}"
    return text


def _format_value(value: Any, unit: str, uncertainty: Any = None) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value} {unit}".strip()
    if unit == "B":
        return f"{size_label(value)} ({value:g} B)" if value >= 1024 else f"{value:g} B"
    if unit == "s":
        return _with_uncertainty(value, uncertainty, 1e6, "µs", 1)
    if unit == "A":
        return _with_uncertainty(value, uncertainty, 1e3, "mA", 1)
    if unit in ("pages", "steps", "dies", "packages") and value == 1:
        unit = unit[:-1]  # "1 page", not "1 pages"
    return f"{value:g} {unit}".strip()


def format_quantity(q: Mapping[str, Any] | None, *, with_evidence: bool = True) -> str:
    """One result as text; an undetermined one says so and why.

    Parameters
    ----------
    q : mapping
        A profile quantity table (``value``, ``unit``, ``confidence``, ``evidence`` …).
        ``None`` (the key is absent from the profile) reads as "not in the profile".
    with_evidence : bool
        Append the evidence to undetermined results (the figures' annotations leave it
        out to stay short).

    Examples
    --------
    >>> format_quantity({"value": 32768, "unit": "B", "confidence": "high"})
    '32 KiB (32768 B)'
    >>> format_quantity({"value": 3.36e-05, "unit": "s", "confidence": "medium"})
    '33.6 µs'
    >>> format_quantity({"value": 0.1779, "unit": "A", "uncertainty": 0.0008, "confidence": "high"})
    '177.9 ± 0.8 mA'
    >>> format_quantity({"unit": "B", "confidence": "undetermined", "evidence": "no read sweep"})
    'undetermined — no read sweep'
    >>> format_quantity({"unit": "", "confidence": "undetermined", "evidence": "x", "best_guess": "way-priority"})
    'undetermined (leans to way-priority) — x'
    """
    if q is None:
        return "not in the profile"
    value = q.get("value")
    if value is None or q.get("confidence") == "undetermined":
        text = "undetermined"
        guess = q.get("best_guess")
        if guess is not None:
            text += f" (leans to {_format_value(guess, q.get('unit', ''))})"
        evidence = q.get("evidence")
        if with_evidence and evidence:
            text += f" — {evidence}"
        return text
    return _format_value(value, q.get("unit", ""), q.get("uncertainty"))


_COUNTS = {"channels": "channel", "packages": "package", "dies_per_package": "die"}


def format_given(key: str, value: Any) -> str:
    """A given value with its unit, read from the key's SI suffix (``_bytes``, ``_s``, ``_v`` ...).

    Examples
    --------
    >>> [format_given(k, v) for k, v in [("channels", 8), ("page_size_bytes", 4096), ("t_prog_s", 9e-4),
    ...  ("host_rate_bytes_per_s", 3e8), ("rail_v", 5.0), ("packages", 1)]]
    ['8 channels', '4 KiB (4096 B)', '900 µs', '300 MB/s', '5 V', '1 package']
    """
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    if key in _COUNTS:
        return f"{value:g} {_COUNTS[key]}{'' if value == 1 else 's'}"
    if key.endswith("_bytes_per_s"):
        return f"{value / 1e6:.4g} MB/s"
    if key.endswith("_bytes"):
        return f"{size_label(value)} ({value:g} B)" if value >= 1024 else f"{value:g} B"
    if key.endswith("_s"):
        return f"{value * 1e6:.4g} µs"
    if key.endswith("_v"):
        return f"{value:.4g} V"
    if key.endswith("_a"):
        return f"{value * 1e3:.4g} mA"
    return f"{value:g}"
