"""The analysis core: pure functions over numpy arrays, frozen dataclasses out.

No I/O, no globals.  Every reported number is a :class:`Quantity` (given,
measured or inferred, with uncertainty, confidence and evidence).

Entry point
-----------
characterize        captures + given geometry → dies, I/O unit, allocation scheme
measure_traces      per-capture window, peak, charge (batched)
Trace, Given        the inputs; Characterization the output

Building blocks
---------------
moving_average      003 §5.1.3 moving averages (w = 20 peaks, w = 100 patterns); alignment stated
block_means         one-pass coarse trace
measure_window      baseline, noise, active window, w = 20 peak, charge of a batch (``_window``)
fit_steps           staircase of peak over size → N_step, D_step (``_steps``)
summarize_sizes     per-size median, standard error, pooled σ
dies_and_unit       Eq. 1 and Eq. 2 with consistency checks (``_equations``)
unit_from_durations the unit from the duration staircase when peaks are flat (``_units``)
infer_allocation    allocation scheme from durations of every full-unit size (``_allocation``)
unit_rise           packages per unit and their channels from one-unit writes' rise (``_rise``)
Layout, visit_sequence, prefix_end_us, request_end_us
                    the latency recurrence of 003 §4.2 (``_latency``)
Quantity            a number with its provenance (``_quantity``)

Write amplification from R/B pulses (RB-Explorer, 000; ``charz.wa`` runs it)
PulseCounter, PulseWindows, PulseCounts
                    the streaming pulse counter and its width windows (``_pulses``)
check_counts, CountCheck
                    can a count be trusted (``_wa_checks``)
WaGeometry, WaEstimate, wa_eq7, calibrate_mp, re_wa
                    Eq. 7, M_p by Eq. 8, |RE_WA| by Eq. 9 (``_wa``)
geometry_from_profile
                    Eq. 7's constants from a profile (``_wa_profile``)
model_table, ModelRow, rho_from_sf, sf_from_rho, held_spare_factor
                    the closed-form WA models (``_wa_models``)
"""

from charz.analysis._allocation import AllocationResult, CandidateFit, Timing, enumerate_walks, infer_allocation
from charz.analysis._characterize import CaptureTable, Characterization, Given, Trace, characterize, measure_traces
from charz.analysis._equations import DiesAndUnit, dies_and_unit
from charz.analysis._latency import (
    CHANNEL_ONLY,
    CHANNEL_PRIORITY,
    SCHEMES,
    WAY_PRIORITY,
    Layout,
    prefix_end_us,
    request_end_us,
    visit_sequence,
)
from charz.analysis._rise import RiseResult, unit_rise
from charz.analysis._quantity import (
    GIVEN,
    HIGH,
    INFERRED,
    LOW,
    MEASURED,
    MEDIUM,
    UNDETERMINED,
    Quantity,
    combine_confidence,
)
from charz.analysis._smooth import W_PATTERN, W_PEAK, block_means, moving_average
from charz.analysis._steps import SizeLevels, StepResult, fit_steps, summarize_sizes
from charz.analysis._units import UnitFromDurations, unit_from_durations
from charz.analysis._wa import WaEstimate, WaGeometry, calibrate_mp, re_wa, wa_eq7
from charz.analysis._wa_checks import CountCheck, check_counts
from charz.analysis._wa_models import ModelRow, greedy_wa_sf, held_spare_factor, model_table, rho_from_sf, sf_from_rho
from charz.analysis._wa_profile import geometry_from_profile
from charz.analysis._window import FLAG_NAMES, WindowMeasurements, measure_window
from charz.analysis._pulses import PulseCounter, PulseCounts, PulseWindows, count_pulses
from charz.analysis._wa_models import agarwal_wa_rho, lrw_wa_sf
from charz.analysis._setup import check_idle_peaks, check_standby_tail, check_write_cache
from charz.analysis._window_kernel import FLAG_CLIPPED, FLAG_NO_ACTIVITY, FLAG_TRUNCATED

__all__ = [
    "AllocationResult", "CandidateFit", "CaptureTable", "Characterization", "DiesAndUnit", "FLAG_NAMES",
    "Given", "Layout", "Quantity", "SizeLevels", "StepResult", "Timing", "Trace", "UnitFromDurations",
    "WindowMeasurements", "block_means", "characterize", "combine_confidence", "dies_and_unit",
    "enumerate_walks", "fit_steps", "infer_allocation", "measure_traces", "measure_window", "moving_average",
    "prefix_end_us", "request_end_us", "summarize_sizes", "unit_from_durations", "visit_sequence",
    "CHANNEL_ONLY", "CHANNEL_PRIORITY", "WAY_PRIORITY", "SCHEMES", "GIVEN", "MEASURED", "INFERRED",
    "HIGH", "MEDIUM", "LOW", "UNDETERMINED", "W_PEAK", "W_PATTERN",
    "PulseCounter", "PulseCounts", "PulseWindows", "CountCheck", "check_counts", "WaEstimate", "WaGeometry",
    "calibrate_mp", "re_wa", "wa_eq7", "geometry_from_profile",
    "ModelRow", "greedy_wa_sf", "model_table", "rho_from_sf", "sf_from_rho", "held_spare_factor",
    "agarwal_wa_rho", "count_pulses", "lrw_wa_sf",
    "FLAG_CLIPPED", "FLAG_NO_ACTIVITY", "FLAG_TRUNCATED", "check_idle_peaks", "check_standby_tail", "check_write_cache",
    "RiseResult", "unit_rise",
]
