"""Oscilloscopes over VISA: one small protocol, a driver per family, binary transfers.

Public catalogue
----------------
Protocol and data
    :class:`Scope`            what charz needs from any scope
    :class:`ScopeSettings`    channel, timebase and trigger for one capture
    :class:`Record`           one fetched :class:`~charz.waveform.Waveform` + the scope's text
    :class:`Identity`         the ``*IDN?`` fields
    :class:`ScopeEvent`       one error-queue entry
Connecting
    :func:`open_scope`        connect, identify, pick the driver from ``*IDN?``
    :func:`select_driver`     the driver class and model for an identity
Drivers
    :class:`TekDPO`           Tektronix DPO/MSO 2k/3k/4k, MDO 3k/4k
    :class:`TekMSO`           Tektronix 4/5/6 Series MSO
    :class:`KeysightInfiniiVision`  Keysight / Agilent InfiniiVision X-Series
    :class:`ScopeDriver`      the shared skeleton (public checks → ``_do_x``)
Model limits (``instruments/*.toml``)
    :class:`ScopeModel` (with its :class:`Timing`), :func:`load_model`, :func:`load_models`
Transport seam
    :class:`Transport`, :func:`open_transport` (picks one of :class:`PyVisaTransport`,
    :class:`SocketTransport`), :class:`ReplayTransport`
Bring-up
    :func:`run_check`, :class:`CheckResult`

Example
-------
>>> from charz.scope import open_scope, ScopeSettings                        # doctest: +SKIP
>>> with open_scope("TCPIP::192.168.1.20::4000::SOCKET") as scope:            # doctest: +SKIP
...     scope.configure(ScopeSettings(vertical_scale=0.05, trigger_level=0.3))
...     scope.arm(); issue_the_write(); scope.wait(timeout_s=2.0)
...     record = scope.fetch()
"""

from charz.scope._base import ScopeDriver
from charz.scope._check import CheckResult, run_check
from charz.scope._keysight import KeysightInfiniiVision
from charz.scope._models import ScopeModel, Timing, load_model, load_models
from charz.scope._protocol import Scope
from charz.scope._record import Record
from charz.scope._registry import DRIVERS, open_scope, select_driver
from charz.scope._replay import ReplayTransport
from charz.scope._settings import ScopeSettings, parse_channel
from charz.scope._tek import TekDPO, TekMSO
from charz.scope._transport import PyVisaTransport, SocketTransport, Transport, open_transport
from charz.scope._wire import Identity, ScopeEvent
from charz.scope._models import position_div, screen_divisions, screen_position_div
from charz.scope._retry import RetryingScope, open_with_retry
from charz.scope._wire import parse_wfmoutpre

__all__ = [
    "Scope",
    "ScopeSettings",
    "Record",
    "Identity",
    "ScopeEvent",
    "open_scope",
    "select_driver",
    "DRIVERS",
    "ScopeDriver",
    "TekDPO",
    "TekMSO",
    "KeysightInfiniiVision",
    "ScopeModel",
    "Timing",
    "load_model",
    "load_models",
    "Transport",
    "PyVisaTransport",
    "open_transport",
    "SocketTransport",
    "ReplayTransport",
    "run_check",
    "CheckResult",
    "parse_channel",
    "RetryingScope", "open_with_retry", "parse_wfmoutpre", "position_div", "screen_divisions", "screen_position_div",
]
