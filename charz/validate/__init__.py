"""Validate a measured write I/O unit the way 003 §6 does: a record-size sweep.

Direct sequential writes of one file (003: 128 MB) with record sizes 4 KB ... 64 KB; per
record size MB/s, mean supply current and J/MB, whether the record size is a multiple of
the profile's ``results.write_io_unit_bytes``, and 003 Table 4's ratio of the aligned
size against 4 KB ("+X % MB/s, −Y % energy").  Every figure says where it came from:
``model`` on the mock bench, ``measured`` on a real one.

Catalogue
=========

The unit (``_unit``)
    MeasuredUnit, NO_PROFILE       the unit with its citation, or why there is none
    unit_from_profile              a validated profile → MeasuredUnit (ProfileError names the key)
    is_aligned, aligned_record_size
Results (``_rows``, ``_compare``, ``_result``)
    ValidationRow                  one record size: MB/s, mean current, J/MB, source
    Comparison, compare_aligned    aligned vs 4 KB; PAPER_TABLE4 holds 003's figures
    ValidationResult, build_result, RailVoltage (given or assumed)
Output (``_format``, ``_profile``)
    format_table                   the text report (pure)
    validation_section, with_validation   the profile's ``validation`` table
Workload (``_sections``)
    run_section, check_sweep       ``workloads/recsize-one.fio`` once per record size, JSON checked
The request (``_request``)
    ValidateRequest                what the command was given, checked before any I/O:
                                   MockValidation or BenchValidation, sizes, rail, unit

Runs (``_mock``, ``_bench``, ``_scope``)
    run_mock                       real fio on a scratch file, the drive from the simulated SSD's model
    run_bench                      guard + claim + confirm, fio on the device, scope averaging
    average_current, averaging_settings, CurrentAverage, measure_section

Example
-------
>>> from charz.validate import MeasuredUnit, is_aligned
>>> is_aligned(32768, MeasuredUnit(32768, "results.write_io_unit_bytes"))
True
"""

from charz.validate._bench import measure_section, run_bench
from charz.validate._compare import BASELINE_BYTES, PAPER_TABLE4, Comparison, compare_aligned, format_change
from charz.validate._format import format_size, format_table
from charz.validate._mock import run_mock
from charz.validate._profile import validation_section, with_validation
from charz.validate._request import BenchValidation, MockValidation, ValidateRequest
from charz.validate._result import SCHEMA_ID, RailVoltage, ValidationResult, build_result
from charz.validate._rows import MEASURED, MODEL, ValidationRow
from charz.validate._scope import CurrentAverage, average_current, averaging_settings
from charz.validate._sections import DEFAULT_FILE_SIZE, DEFAULT_RECORD_SIZES, JOBFILE, check_sweep, run_section
from charz.validate._unit import NO_PROFILE, MeasuredUnit, aligned_record_size, is_aligned, unit_from_profile

__all__ = [
    "BASELINE_BYTES", "BenchValidation", "Comparison", "CurrentAverage", "DEFAULT_FILE_SIZE", "DEFAULT_RECORD_SIZES", "JOBFILE",
    "MEASURED", "MODEL", "MeasuredUnit", "MockValidation", "NO_PROFILE", "PAPER_TABLE4", "RailVoltage", "SCHEMA_ID", "ValidateRequest", "ValidationResult",
    "ValidationRow", "aligned_record_size", "average_current", "averaging_settings", "build_result", "check_sweep",
    "compare_aligned", "format_change", "format_size", "format_table", "is_aligned", "measure_section", "run_bench",
    "run_mock", "run_section", "unit_from_profile", "validation_section", "with_validation",
]
