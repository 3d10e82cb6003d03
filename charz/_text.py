"""Numbers as text a person reads: sizes, times, currents, counts, undetermined results.

Pure string functions; the terminal summary, the figures and the HTML page all use
them so a number reads the same in the summary, a caption and the results table.
It sits outside ``charz.profile`` so that the CLI can import it without that package's
schema and analysis stack (every command, even ``--help``, imports the CLI first).
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from math import floor, log10
from typing import Any, Mapping

__all__ = ["RESULT_LABELS", "count", "fit", "layout_words", "fold", "format_given", "format_quantity", "ordered_result_keys",
           "significant", "singular_counts", "size_label", "size_ranges", "terminal_width"]

WIDTH = 80  # a terminal's columns; every line charz prints fits

_SINGULAR = {"pages": "page", "dies": "die", "packages": "package", "steps": "step", "channels": "channel",
             "captures": "capture", "sizes": "size", "units": "unit", "levels": "level", "bursts": "burst",
             "ways": "way", "requests": "request", "writes": "write", "reads": "read"}


def count(n: float, plural: str) -> str:
    """A count with its noun in the right number.

    Examples
    --------
    >>> count(1, "pages"), count(2, "dies"), count(0, "captures"), count(1.0, "packages")
    ('1 page', '2 dies', '0 captures', '1 package')
    """
    word = _SINGULAR.get(plural, plural) if n == 1 else plural
    return f"{n:g} {word}"


def singular_counts(text: str) -> str:
    """Text written for any count ("every 1 pages", "× 1 dies") with "1 <plural>" made singular.

    Examples
    --------
    >>> singular_counts("boundaries every 1 pages; 20 steps × 1 dies = 1 pages, 11 pages")
    'boundaries every 1 page; 20 steps × 1 die = 1 page, 11 pages'
    """
    def one(m: re.Match) -> str:
        return f"{m.group(1)}1 {_SINGULAR[m.group(2)]}"

    return re.sub(r"(^|[^\d.,])1 (" + "|".join(_SINGULAR) + r")\b", one, text)


_LAYOUT = re.compile(r"\b(\d+)×(\d+) (channel|way)-priority\b")


def layout_words(text: str) -> str:
    """The analysis's block-layout names said as what they are, so a layout never reads as a
    second scheme ("channel-only (4×2 channel-priority)").

    A layout is blocks of c × w packages filled in channel or way order (docs/analysis.md);
    the scheme is what the resulting walk is called.

    Examples
    --------
    >>> layout_words("channel-only (1×1 channel-priority, 4×2 way-priority) fits")
    'channel-only (1×1 blocks filled channel-first, 4×2 blocks filled way-first) fits'
    """
    return _LAYOUT.sub(lambda m: f"{m.group(1)}×{m.group(2)} blocks filled {m.group(3)}-first", text)


def significant(value: float, digits: int = 3, *, zeros: bool = False) -> str:
    """A measured number to ``digits`` significant digits, never in float noise or e-notation
    for everyday magnitudes; ``zeros`` keeps trailing zeros (a column of figures: 12.0 beside 2.87).

    Examples
    --------
    >>> significant(7.999999999999999e-05 * 1e6), significant(234.51), significant(0.9649), significant(1234.6), significant(1.234e-5)
    ('80', '235', '0.965', '1235', '0.0000123')
    >>> [significant(v, 3, zeros=True) for v in (12.0025, 2.871, 284.2, 0.08563, 1234.6)]
    ['12.0', '2.87', '284', '0.0856', '1235']
    """
    if value == 0:
        return "0"
    if zeros:
        return f"{value:.{max(0, digits - 1 - floor(log10(abs(value))))}f}"
    text = f"{value:.{digits}g}"
    if "e" in text and abs(value) >= 1:  # 1.23e+03: whole digits are never dropped
        text = f"{value:.0f}"
    elif "e" in text:  # 1.23e-05: written out

        text = f"{value:.{digits - 1 - floor(log10(abs(value)))}f}"
    return text


def size_ranges(sizes_bytes: list[int], step_bytes: int | None = None) -> str:
    """Sizes as runs in KiB: ``4-28, 36-60 KiB`` (a run is consecutive multiples of ``step_bytes``).

    Examples
    --------
    >>> size_ranges([4096, 8192, 12288, 20480, 24576, 40960])
    '4-12, 20-24, 40 KiB'
    >>> size_ranges([])
    'none'
    """
    sizes = sorted(int(s) for s in sizes_bytes)
    if not sizes:
        return "none"
    step = step_bytes or min((b - a for a, b in zip(sizes, sizes[1:]) if b > a), default=sizes[0])
    runs: list[list[int]] = [[sizes[0], sizes[0]]]
    for s in sizes[1:]:
        if s - runs[-1][1] == step:
            runs[-1][1] = s
        else:
            runs.append([s, s])
    kib = [f"{a / 1024:g}" if a == b else f"{a / 1024:g}-{b / 1024:g}" for a, b in runs]
    return ", ".join(kib) + " KiB"


_UNIT_PAIR = re.compile(r"(\d) (mA|A|µs|ms|s|KiB|MiB|GiB|B|V|W|mJ|J|nJ/B|MB/s|%|σ|pages?|dies?|packages?|"
                        r"steps?|channels?|captures?|sizes?)(?=[\s,;:.)]|$)")


def fold(text: str, *, first: str = "", rest: str | None = None, width: int = WIDTH) -> str:
    """``text`` wrapped to ``width`` columns, the first line after ``first``, the others indented
    by ``rest`` (default: as deep as ``first``); paths and long words stay whole.

    Examples
    --------
    >>> print(fold("one two three four five six", first="  - ", width=16))
      - one two
        three four
        five six
    >>> print(fold("peaks: 4 packages 178 mA, 8 packages 257 mA", width=36))
    peaks: 4 packages 178 mA, 8 packages
    257 mA
    """
    rest = " " * len(first) if rest is None else rest
    # A number and its unit stay on one line ("257 mA", "1 package"): joined by a no-break
    # space while wrapping (textwrap breaks only at ASCII whitespace), a plain space after.
    text = _UNIT_PAIR.sub(lambda m: m.group(1) + "\u00a0" + m.group(2), " ".join(str(text).split()))
    return textwrap.fill(text, width=width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False).replace("\u00a0", " ")

# A line's own indent: leading spaces and a marker ("$ ", "! ", "· ", "≠ ", "# ", "- ", "✗ ",
# "== "), or a label column ("basis     ", "kernel    ").
_HANG = re.compile(r"^(\s*)(?:([$!·≠#\-✗*]|==) |([a-z][\w ]{0,12}?\s{2,})(?=\S))?")


def terminal_width() -> int:
    """The terminal's columns (``COLUMNS`` first), 80 when output is not a terminal; at least 40."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if not columns and sys.stdout.isatty():
        try:
            columns = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError):
            columns = 0
    return max(40, columns or WIDTH)


def fit(text: str, width: int = WIDTH) -> str:
    """Every line of ``text`` folded to ``width`` columns under its own indent.

    A continuation line starts under the text of its line (after the indent and a marker
    such as ``$ `` or ``! ``, or after a label column); a shell command (``$ ...``) is
    continued with `` \\`` so it still pastes as one command.  Long words (paths) stay whole.

    Examples
    --------
    >>> print(fit("  ! one two three four five", width=16))
      ! one two
        three four
        five
    >>> print(fit("  $ mkfs.ext4 -b 4096 -E stride=8 DEV", width=24))
      $ mkfs.ext4 -b 4096 \\
          -E stride=8 DEV
    >>> print(fit("basis     a b c d e f g h", width=16))
    basis     a b c
              d e f
              g h
    """
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        m = _HANG.match(line)
        lead, marker, label = m.group(1), m.group(2), m.group(3)
        head = lead + (marker + " " if marker else label or "")
        body = line[len(head):]
        if marker == "$":  # a command: continuation lines end in a backslash
            parts = textwrap.wrap(body, width - len(head) - 2, break_long_words=False, break_on_hyphens=False)
            pad = lead + "    "
            rows = [head + parts[0]] + [pad + p for p in parts[1:]]
            out.append(" \\\n".join(rows))
            continue
        # a plain line hangs two columns deeper than it starts
        hang = " " * len(head) if (marker or label) else lead + "  "
        out.append(textwrap.fill(body, width, initial_indent=head, subsequent_indent=hang,
                                 break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)


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
