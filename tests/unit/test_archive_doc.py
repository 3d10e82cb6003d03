"""docs/archive.md tells the truth: its ten-line reader works, its tables are current."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from charz.archive import ArchiveWriter, Capture, Channel, read_archive
from charz.waveform import Waveform
from charz.archive._format import render_doc_tables

pytestmark = pytest.mark.unit

DOC = Path(__file__).resolve().parents[2] / "docs" / "archive.md"
MARKER = "<!-- reader: this block is run by tests/unit/test_archive_doc.py -->"


def doc_reader():
    """The code block that follows the marker in the doc, and its ``read_session``."""
    text = DOC.read_text("utf-8")
    assert text.count(MARKER) == 1, "the reader block lost its marker"
    match = re.match(r"\s*```python\n(.*?)\n```", text.split(MARKER)[1], re.S)
    assert match, "no ```python block right after the marker"
    code = match.group(1)
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    return code, namespace["read_session"]


def write_archive(path: Path, dtype_sets: list[tuple]) -> Path:
    rng = np.random.default_rng(3)
    with ArchiveWriter.create(path, {"drive": {"model": "doc"}, "plan": {"steps": [1, 2]}}) as writer:
        for step, dtypes in enumerate(dtype_sets):
            n = int(rng.integers(1, 5000)) if step else 0
            channels = []
            for name, dtype in zip(("current", "voltage"), dtypes):
                info = np.iinfo(dtype)
                codes = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
                w = Waveform(codes, float(rng.uniform(1e-5, 1e-2)), float(rng.uniform(-30, 30)), float(rng.normal()),
                             1.6e-6, -3e-4, unit="A", source="CH1", code_min=int(info.min), code_max=int(info.max))
                channels.append(Channel(name, w))
            writer.append(
                Capture(
                    step=step, op="write", size_bytes=4096 << step, offset_bytes=0, repeat=0,
                    time_reference="trigger", channels=channels,
                )
            )
    return path


def test_reader_is_at_most_ten_lines():
    code, _ = doc_reader()
    assert len(code.splitlines()) <= 10, code


@pytest.mark.parametrize(
    "dtype_sets",
    [
        pytest.param([(np.int8,)] * 3, id="int8"),
        pytest.param([(np.int16,)] * 3, id="int16"),
        pytest.param([(np.int16, np.int8), (np.int8,), (np.int8, np.int16)], id="mixed"),
    ],
)
def test_doc_reader_gets_the_same_values_as_charz(tmp_path, dtype_sets):
    path = write_archive(tmp_path / "s", dtype_sets)
    # Orphans of an interrupted capture must not confuse it either.
    (path / "captures" / f"{len(dtype_sets):06d}.current.npy").write_bytes(b"partial")
    (path / "captures" / ".000009.json.0123456789abcdef.tmp").write_bytes(b"{")
    _, read_session = doc_reader()

    metadata, records = read_session(path)
    archive = read_archive(path)

    assert metadata == archive.metadata
    assert len(records) == len(archive.captures) == len(dtype_sets)
    for record, cap in zip(records, archive.captures):
        head = (record["index"], record["op"], record["size_bytes"], record["step"])
        assert head == (cap.index, cap.op, cap.size_bytes, cap.step)
        assert [ch["name"] for ch in record["channels"]] == [ch.name for ch in cap.channels]
        for ch_doc, ch in zip(record["channels"], cap.channels):
            assert ch_doc["codes"].dtype == ch.waveform.codes.dtype
            assert np.array_equal(ch_doc["codes"], ch.waveform.codes)
            assert ch_doc["si"].dtype == np.float64
            assert np.array_equal(ch_doc["si"], ch.waveform.values())  # bit for bit, not approximately
        t_doc = record["t_first_sample_s"] + np.arange(record["channels"][0]["n_samples"]) * record["sample_interval_s"]
        assert np.array_equal(t_doc, cap.time_s())  # the doc's time formula


def test_field_tables_in_the_doc_are_current():
    text = DOC.read_text("utf-8")
    assert render_doc_tables(text) == text, (
        "docs/archive.md's field tables differ from charz/archive/_format.py; regenerate them with the "
        "command given in the doc"
    )
