"""The logic-analyser side of write-amplification measurement (000/001, RB-Explorer).

sigrok-cli is the transport (:mod:`._sigrok`): a bench streams ``--continuous``
``-O binary`` from a real analyser; the mock bench writes the simulated die's R/B
train as a sigrok session file (:mod:`._srzip`, rendered by :mod:`._render`) and
reads it back through the same ``sigrok-cli``.  :mod:`._count` applies the stop
rule of 000 §4.2 while the pulse counter (``charz.analysis._pulses``) counts.
"""

from charz.logic._count import CountResult, StepOutcome, count_until_settled
from charz.logic._render import RenderedTrain, place_pulses, render_chunks
from charz.logic._sigrok import (
    FileInfo,
    LogicSpec,
    SigrokStream,
    channel_bit,
    file_argv,
    find_sigrok_cli,
    parse_logic_spec,
    show_file,
    stream_argv,
)
from charz.logic._srzip import SessionMeta, parse_metadata, parse_samplerate, read_session_chunks, write_session

__all__ = [
    "CountResult", "StepOutcome", "count_until_settled", "RenderedTrain", "place_pulses", "render_chunks", "LogicSpec",
    "SigrokStream", "channel_bit", "file_argv", "find_sigrok_cli", "parse_logic_spec", "stream_argv",
    "SessionMeta", "parse_metadata", "read_session_chunks", "write_session", "FileInfo", "show_file",
    "parse_samplerate",
]
