"""Profiles: what charz inferred about a drive, in a versioned TOML/JSON schema.

build_profile      Characterization + archive metadata → profile dict (pure)
build_schema       the JSON Schema of ``charz.profile/1`` (one definition)
schema_json        the schema as text (``profiles/profile.schema.json`` is generated from it)
to_toml, to_json   serialise
write_profile      write atomically (TOML, or JSON for a .json suffix)
read_profile       read and validate; ProfileError names the bad key
validate_profile   validate a parsed profile
"""

from charz.profile._build import build_profile, quantity_dict
from charz.profile._io import read_profile, to_json, to_toml, validate_profile, write_profile
from charz.profile._schema import PROFILE_SCHEMA_ID, build_schema, schema_json
from charz.profile._pipeline import analyze_archive, traces_from_archive

__all__ = [
    "PROFILE_SCHEMA_ID", "build_profile", "build_schema", "quantity_dict", "read_profile", "schema_json",
    "to_json", "to_toml", "validate_profile", "write_profile",
    "analyze_archive", "traces_from_archive",
]
