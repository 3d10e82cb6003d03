"""Profiles on disk: TOML (the default) or JSON, and reading them back with validation."""

from __future__ import annotations

import json
import math
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from charz.archive import write_atomic
from charz.errors import ProfileError
from charz.profile._schema import PROFILE_SCHEMA_ID, build_schema


def _import_jsonschema():
    # jsonschema loads rfc3987_syntax where it is installed (tm_devices, a test dependency, asks
    # for jsonschema[format-nongpl]) and that compiles 39 grammars on import: 1.3 s added to
    # every charz command.  Profiles are validated without a FormatChecker ("format" is never
    # checked), so jsonschema is loaded without it; it stays importable for anyone else.

    if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        import jsonschema  # lazy: jsonschema
        return jsonschema
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import jsonschema  # lazy: jsonschema
    finally:
        del sys.modules["rfc3987_syntax"]
    return jsonschema


jsonschema = _import_jsonschema()


def _drop_none(value: Any) -> Any:
    # TOML has no null: an undetermined quantity simply has no "value" key.
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value if v is not None]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def to_toml(profile: dict[str, Any]) -> str:
    return tomli_w.dumps(_drop_none(profile))


def to_json(profile: dict[str, Any]) -> str:
    return json.dumps(profile, indent=2, allow_nan=False, default=str) + "\n"


def write_profile(profile: dict[str, Any], path: str | os.PathLike) -> Path:
    """Write atomically; ``.json`` suffix → JSON, anything else → TOML."""
    path = Path(path)
    data = (to_json(profile) if path.suffix == ".json" else to_toml(profile)).encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda f: f.write(data))
    except OSError as exc:
        raise ProfileError(f"cannot write the profile {path}: {exc.strerror or exc}",
                           hint="choose another file with -o; the session is untouched, so analyzing it again costs nothing but time") from None
    return path


# JSON Schema counts 1e12 (a float) as an integer; tune's arithmetic on sizes does not: an
# integer field must hold an integer (issue 16: a hand-edited 1e12 gave a traceback).
_StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)),
)


def validate_profile(profile: Any, *, origin: str = "profile") -> dict[str, Any]:
    """Check a parsed profile against ``charz.profile/1``; ProfileError says where it is wrong."""
    if not isinstance(profile, dict):
        raise ProfileError(f"{origin}: not a profile (top level is {type(profile).__name__})")
    schema = profile.get("schema")
    if schema != PROFILE_SCHEMA_ID:
        hint = "this file is not a charz profile" if schema is None else "re-run charz analyze with this version of charz"
        raise ProfileError(f"{origin}: schema is {schema!r}, this charz reads {PROFILE_SCHEMA_ID!r}", hint=hint)
    validator = _StrictValidator(build_schema())
    errors = sorted(validator.iter_errors(profile), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise ProfileError(
            f"{origin}: {where}: {first.message}{more}",
            hint="regenerate the profile with charz analyze, or fix the named key",
        )
    return profile


def read_profile(path: str | os.PathLike) -> dict[str, Any]:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ProfileError(f"cannot read profile {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}",
                           hint="the file is truncated or was edited by hand; regenerate it with charz analyze") from None
    return validate_profile(data, origin=str(path))
