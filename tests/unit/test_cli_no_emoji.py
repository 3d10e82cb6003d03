"""Issue 25: rich must not read SCPI or paths as emoji codes (``TRIGger:A:EDGE:SLOpe?`` printed
as ``TRIGger🅰EDGE:SLOpe?``) on any console charz prints through."""

from __future__ import annotations

import pytest

from charz.errors import ScopeProtocolError

SCPI = "TRIGger:A:EDGE:SLOpe? and /data/:smile:/run"

pytestmark = pytest.mark.unit


def test_an_error_prints_scpi_as_written(capsys):
    from charz.cli import report_error

    report_error(ScopeProtocolError(f"reply to {SCPI} is not a number", hint=f"query {SCPI} again"))
    err = capsys.readouterr().err
    assert err.count(SCPI) == 2 and "🅰" not in err and "😄" not in err


def test_session_log_and_results_print_scpi_as_written(capsys):
    from charz.cli._characterize import CliUI
    from charz.cli._common import console

    CliUI().log(f"step 3: {SCPI}")
    console.print(f"note: {SCPI}")
    out = capsys.readouterr()
    assert SCPI in out.err and SCPI in out.out
    assert "🅰" not in out.err + out.out
