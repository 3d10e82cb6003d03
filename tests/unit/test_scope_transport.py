"""VISA and socket failures become charz errors that keep their codes and say what to do."""

from __future__ import annotations

import errno

import pytest
from pyvisa import constants, errors

from charz.errors import ScopeConnectionError, ScopeError, ScopeTimeout, ScopeTransferError
from charz.scope._transport import PyVisaTransport, visa_error

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("status, cls", [
    (constants.StatusCode.error_timeout, ScopeTimeout),
    (constants.StatusCode.error_connection_lost, ScopeConnectionError),
    (constants.StatusCode.error_resource_not_found, ScopeConnectionError),
    (constants.StatusCode.error_resource_busy, ScopeConnectionError),
    (constants.StatusCode.error_io, ScopeConnectionError),
    (constants.StatusCode.error_nonsupported_attribute, ScopeError),
])
def test_visa_status_codes_map_to_the_hierarchy_and_keep_the_code(status, cls):
    err = visa_error(errors.VisaIOError(status), "reading *IDN?", "TCPIP::10.0.0.2::4000::SOCKET")
    assert type(err) is cls
    assert err.code == int(status)
    assert errors.VisaIOError(status).abbreviation in err.message
    assert "TCPIP::10.0.0.2::4000::SOCKET" in err.message and err.hint


def test_socket_and_block_failures():
    err = visa_error(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"), "sending", "r")
    assert type(err) is ScopeConnectionError and err.code == errno.ECONNREFUSED
    err = visa_error(errors.InvalidBinaryFormat("bad"), "reading the block", "r")
    assert type(err) is ScopeTransferError


def test_opening_bad_resources_fails_cleanly():
    with pytest.raises(ScopeConnectionError, match="VI_ERROR_INV_RSRC_NAME") as info:
        PyVisaTransport.open("not a resource")
    assert "TCPIP::192.168.1.20::4000::SOCKET" in info.value.hint
    with pytest.raises(ScopeConnectionError, match="cannot load the VISA library"):
        PyVisaTransport.open("TCPIP::127.0.0.1::1::SOCKET", visa_library="/nonexistent/libvisa.so")
