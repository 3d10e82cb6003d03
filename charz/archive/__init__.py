"""The capture archive: one session directory per characterization run.

Every capture charz takes — from a real scope, the mock scope or the simulator —
is stored the same way: raw int8/int16 ADC codes in ``.npy`` files plus a JSON
commit record with their scaling, written so that a kill at any moment loses at
most the capture in flight.  ``docs/archive.md`` describes the format well
enough to read it with numpy and json alone.

::

    SESSION/
      session.json            schema, created_utc, tool, drive, bench, plan, ...
      session.lock            flock()ed by the one writer
      captures/
        000000.json           commit record of capture 0 (written last)
        000000.current.npy    one 1-D int8/int16 .npy per channel

Data
----
Channel          a name and its :class:`charz.waveform.Waveform` (codes, scaling, time axis,
                 ADC limits, unit, source), checked against the format's rules
Capture          one record around one host request: op, size, offset, channels (their
                 shared time axis is ``sample_interval_s``, ``t_first_sample_s``)
Archive          what :func:`read_archive` returns: metadata, captures, damaged
Damaged          a file tolerant reading skipped, and why

Writing and reading
-------------------
ArchiveWriter    ``create(path, metadata)``, ``open_append(path)``, ``append(capture)``,
                 ``update_metadata(**changes)``, ``close()``
read_archive     ``read_archive(path, *, verify=True, tolerant=False) -> Archive``
write_atomic     ``write_atomic(path, write)``: a file either absent or complete (profiles and reports use it too)
WaArchive        the write-amplification archive (``_wa``): ``create``, ``resume``, ``commit``;
read_wa_archive  its JSON documents as stored (``charz.wa`` reads them into typed values)

Modules
-------
_format          the wire format as pure functions and field tables (validation, dict ↔ dataclass)
_atomic          write a file atomically and durably (temp + fsync + rename)
_writer          the commit protocol, locking, resuming
_reader          reading, verifying, reporting damage

Errors are :class:`charz.errors.ArchiveError` (cannot read or write) and
:class:`charz.errors.ArchiveCorrupt` (a file is damaged; names it).  Values the
format does not allow (NaN sample interval, float codes ...) raise ``ValueError``
when the dataclasses are built: that is a bug in the caller, not a bad archive.

Examples
--------
>>> import numpy as np, tempfile, pathlib
>>> from charz.waveform import Waveform
>>> w = Waveform(np.array([10, 12, 11], dtype=np.int8), 0.004, 0, 0.0, 2e-6, -1e-4,
...              unit="A", source="CH1", code_min=-128, code_max=127)
>>> cap = Capture(step=0, op="write", size_bytes=4096, offset_bytes=0, repeat=0,
...               time_reference="request", channels=[Channel("current", w)])
>>> path = pathlib.Path(tempfile.mkdtemp()) / "session"
>>> with ArchiveWriter.create(path, {"drive": {"model": "demo"}}) as writer:
...     writer.append(cap)
0
>>> archive = read_archive(path)
>>> archive.metadata["drive"], archive.captures[0].channel("current").waveform.codes.tolist()
({'model': 'demo'}, [10, 12, 11])
"""

from charz.archive._atomic import write_atomic
from charz.archive._format import CAPTURE_SCHEMA, SESSION_SCHEMA, Capture, Channel
from charz.archive._reader import Archive, Damaged, read_archive
from charz.archive._wa import WA_SCHEMA, WaArchive, ftl_label, read_wa_archive
from charz.archive._writer import ArchiveWriter
from charz.archive._given import check_given, check_rail_v
from charz.archive._writer import free_text

__all__ = [
    "CAPTURE_SCHEMA",
    "SESSION_SCHEMA",
    "Archive",
    "ArchiveWriter",
    "Capture",
    "Channel",
    "Damaged",
    "read_archive",
    "write_atomic",
    "WA_SCHEMA",
    "WaArchive",
    "ftl_label",
    "read_wa_archive",
    "check_given", "check_rail_v", "free_text",
]
