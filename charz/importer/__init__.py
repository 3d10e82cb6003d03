"""Waveforms a scope saved itself (Tek CSV / ISF / WFM, Keysight CSV / BIN) ↔ a capture archive.

``docs/import.md`` describes the manifest (TOML: which file is which request) and the
formats.  Modules:

_waveform   one record read from a file: a charz.waveform.Waveform plus what the file says
_quantize   float samples back to integer codes (exactly when they lie on a grid)
_isf        Tektronix ISF (the scope's ``WFMPre?;CURVe?`` answer in a file): pure parse/format
_keysight   Keysight BIN (InfiniiVision/Infiniium) pure parse/format, and Keysight CSV
_files      one file → a waveform, by suffix and content (Tek CSV/WFM through tm_data_types)
_manifest   the manifest: parse and validate
_build      manifest + files → an archive (through the archive writer)
_export     an archive → scope-format files + manifest (for round trips and other tools)
"""

from charz.importer._build import import_folder
from charz.importer._export import FORMATS, export_archive
from charz.importer._manifest import Manifest, load_manifest
from charz.importer._files import SUFFIXES, read_records
from charz.importer._guess import guess_folder, manifest_doc
from charz.importer._manifest import MANIFEST_NAME

__all__ = [
    "FORMATS", "Manifest", "export_archive", "import_folder", "load_manifest",
    "MANIFEST_NAME", "SUFFIXES", "guess_folder", "manifest_doc", "read_records",
]
