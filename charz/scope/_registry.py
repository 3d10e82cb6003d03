"""Choosing the driver from ``*IDN?``: model files name a family, families name a class.

Example
-------
>>> from charz.scope._wire import parse_idn
>>> cls, model = select_driver(parse_idn("TEKTRONIX,MDO3024,C1,CF:91.1CT FV:v1.30"))
>>> cls.__name__, model.name
('TekDPO', 'tek_mdo3000')
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from charz.errors import ScopeError, ScopeProtocolError
from charz.scope._base import ScopeDriver
from charz.scope._keysight import KeysightInfiniiVision
from charz.scope._models import ScopeModel, find_model, load_models
from charz.scope._tek import TekDPO, TekMSO
from charz.scope._transport import Transport, open_transport
from charz.scope._wire import Identity, parse_idn

__all__ = ["DRIVERS", "select_driver", "open_scope"]

#: family name (``family =`` in instruments/*.toml) → driver class; read-only.
DRIVERS = MappingProxyType({cls.family: cls for cls in (TekDPO, TekMSO, KeysightInfiniiVision)})


def select_driver(identity: Identity, models: tuple[ScopeModel, ...] | None = None,
                  models_dir: str | Path | None = None) -> tuple[type[ScopeDriver], ScopeModel]:
    """The driver class and model description for an identity, or ScopeProtocolError."""
    models = models if models is not None else load_models(models_dir)
    model = find_model(identity.manufacturer, identity.model, models)
    if model is None or model.family not in DRIVERS:
        known = ", ".join(f"{m.name} ({m.model_pattern})" for m in models if m.family in DRIVERS)
        raise ScopeProtocolError(
            f"no charz driver for {identity.manufacturer} {identity.model} "
            f"(*IDN?: {identity})",
            hint=f"charz drives: {known}. Check the resource string points at the scope; "
                 "a close relative can be added as an instruments/*.toml file",
            code="unsupported-instrument",
        )
    return DRIVERS[model.family], model


def open_scope(resource: str, *, visa_library: str = "@auto", timeout_s: float = 2.0,
               headers: bool = True, models_dir: str | Path | None = None,
               transport: Transport | None = None) -> ScopeDriver:
    """Connect, identify and return the right driver, ready to configure.

    Example
    -------
    >>> scope = open_scope("TCPIP::127.0.0.1::4000::SOCKET")          # doctest: +SKIP
    >>> type(scope).__name__, scope.identity.model                      # doctest: +SKIP
    ('TekDPO', 'DPO3014')
    """
    own = transport is None
    if transport is None:
        transport = open_transport(resource, visa_library=visa_library, timeout_s=timeout_s)
    try:
        idn_raw = transport.query("*IDN?")
        identity = parse_idn(idn_raw)
        cls, model = select_driver(identity, models_dir=models_dir)
        driver = cls(model=model, headers=headers, io_timeout_s=timeout_s,
                     models_dir=None if models_dir is None else str(models_dir))
        driver.attach(transport, identity, idn_raw)
    except ScopeError:
        if own:
            transport.close()
        raise
    return driver
