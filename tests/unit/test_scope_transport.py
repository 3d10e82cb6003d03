"""VISA and socket failures become charz errors that keep their codes and say what to do; the
transport for a resource; and no reaching into pyvisa-py's private state."""

from __future__ import annotations

import contextlib
import errno
import re
import socket as socket_module
from pathlib import Path

import pytest
from pyvisa import constants, errors

import charz
from charz.errors import ScopeConnectionError, ScopeError, ScopeTimeout, ScopeTransferError
from charz.scope import SocketTransport, Transport, open_transport
from charz.scope._rawsocket import is_socket_resource
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


# pyvisa-py's private state, as charz once reached it (scope/_transport.py before issue 26):
# its session table, a session's socket and buffer, and its receive size.
_PRIVATE = [
    re.compile(r"visalib\.sessions|\.sessions\s*[\[.]|getattr\([^)]*[\"']sessions[\"']"),
    re.compile(r"_pending_buffer"),
    re.compile(r"max_recv_size"),
    re.compile(r"\.interface\b|getattr\([^)]*[\"']interface[\"']"),
]
# A socket held in an attribute is pyvisa-py's (VXI-11 sessions: ``interface.sock``) unless
# charz opened it; checked in the modules that import pyvisa (the mock scope's own sockets,
# in charz/sim, are its own).
_SOCKET_ATTR = re.compile(r"\._?sock\b")
_OLD = '''
    sessions = getattr(self._inst.visalib, "sessions", None)
    sock = getattr(session, "interface", None)
    if isinstance(getattr(session, "_pending_buffer", None), bytearray):
        session.max_recv_size = max(int(session.max_recv_size), self.chunk_bytes)
    self._sock: socket.socket = session.interface
'''


def _private_uses(text: str, touches_pyvisa: bool) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if any(p.search(code) for p in _PRIVATE) or (touches_pyvisa and _SOCKET_ATTR.search(code)):
            found.append(f"{number}: {line.strip()}")
    return found


def test_the_private_name_check_catches_the_old_transport():
    assert len(_private_uses(_OLD, touches_pyvisa=True)) == 5


def test_charz_uses_no_pyvisa_py_private_state():
    root = Path(charz.__file__).parent
    offenders = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        imports_pyvisa = re.search(r"^\s*(import|from) pyvisa\b", text, re.MULTILINE) is not None
        if found := _private_uses(text, touches_pyvisa=imports_pyvisa):
            offenders[str(path.relative_to(root))] = found
    assert not offenders, offenders


@pytest.mark.parametrize("resource, socket", [
    ("TCPIP::192.168.1.20::4000::SOCKET", True),
    ("TCPIP0::scope.lab::5025::SOCKET", True),
    ("TCPIP::192.168.1.20::INSTR", False),
    ("TCPIP::192.168.1.20::hislip0::INSTR", False),
    ("USB0::0x0699::0x0410::C012345::INSTR", False),
    ("not a resource", False),
])
def test_raw_socket_resources_are_recognised(resource, socket):
    assert is_socket_resource(resource) is socket


def test_open_transport_gives_a_raw_socket_by_default_to_charz_own_socket():
    with contextlib.closing(socket_module.create_server(("127.0.0.1", 0))) as srv:
        resource = f"TCPIP::127.0.0.1::{srv.getsockname()[1]}::SOCKET"
        for library in ("@auto", "@socket"):
            t = open_transport(resource, visa_library=library)
            try:
                assert isinstance(t, SocketTransport) and isinstance(t, Transport)
                assert t.resource == resource
            finally:
                t.close()
        t = open_transport(resource, timeout_s=0.2)
        t.close()
        t.close()  # idempotent
        with pytest.raises(ScopeConnectionError, match="connection is closed"):
            t.query("*IDN?")


def test_pyvisa_py_asked_for_by_name_keeps_a_raw_socket_on_pyvisa_py():
    # The fallback a user needs if charz's own socket misbehaves with some scope.
    with contextlib.closing(socket_module.create_server(("127.0.0.1", 0))) as srv:
        resource = f"TCPIP::127.0.0.1::{srv.getsockname()[1]}::SOCKET"
        t = open_transport(resource, visa_library="@py", timeout_s=0.2)
        try:
            assert isinstance(t, PyVisaTransport) and isinstance(t, Transport)
        finally:
            t.close()


def test_the_socket_transport_refuses_what_it_cannot_open():
    with pytest.raises(ScopeConnectionError, match="only a raw socket resource") as info:
        open_transport("TCPIP::127.0.0.1::INSTR", visa_library="@socket")
    assert "@py" in info.value.hint
    with contextlib.closing(socket_module.create_server(("127.0.0.1", 0))) as srv:
        port = srv.getsockname()[1]
    with pytest.raises(ScopeConnectionError) as info:  # nobody listens there any more
        SocketTransport.open(f"TCPIP::127.0.0.1::{port}::SOCKET")
    assert info.value.code == errno.ECONNREFUSED and info.value.hint
