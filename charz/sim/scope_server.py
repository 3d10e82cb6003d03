"""A mock oscilloscope: a real TCP server speaking Tektronix (or Keysight) SCPI.

CI reaches it exactly as a bench reaches a scope: ``TCPIP::127.0.0.1::<port>::SOCKET``
through pyvisa-py.  It binds to loopback only.  What the current probe sees comes from
an injected :class:`~charz.sim._source.CurrentSource`; a second loopback port, outside
the vendor's command namespace, speaks JSON lines and tells the mock about each host
I/O (and injects faults)::

    → {"io": {"op": "write", "size_bytes": 32768, "offset_bytes": 1048576}}
    ← {"ok": true, "armed": true, "triggered": true, "trigger_s": 0.00012, "io_count": 1}
    → {"fault": {"kind": "truncated_block", "count": 1}}
    ← {"ok": true, "faults": ["truncated_block"]}
    → {"clear_faults": true}            ← {"ok": true, "faults": []}
    → {"status": true}                  ← {"ok": true, "trigger_state": "SAVE", ...}

Dialects: ``tek`` (DPO3000, 16-field preamble), ``tek-mdo`` (MDO3000, 22 fields),
``tek-mso5`` (5 Series MSO), ``keysight`` (InfiniiVision 3000 X).  Fault kinds are
listed in :mod:`charz.sim._scpi_faults`.

Example
-------
>>> from charz.sim._scpi_demo import PulseTrainSource
>>> with MockScopeServer(PulseTrainSource()) as scope:              # doctest: +SKIP
...     print(scope.resource, scope.control_port)
...     scope.host_io("write", 32768, 0)
TCPIP::127.0.0.1::40123::SOCKET 40124
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any

from charz.errors import UsageError
from charz.scope import load_model
from charz.sim._scpi_acquire import Engine
from charz.sim._scpi_demo import PulseTrainSource
from charz.sim._scpi_dialect import Dialect, Reply, Wait
from charz.sim._scpi_faults import FAULT_KINDS, Fault, FaultBook, parse_fault
from charz.sim._scpi_keysight import KeysightDialect
from charz.sim._scpi_parse import ScpiError, split_message
from charz.sim._scpi_tek import TekDialect
from charz.sim._source import CurrentSource

__all__ = ["MockScopeServer", "MockScopeControl", "DIALECTS", "SESSION_DIALECTS", "FAULT_KINDS"]

#: dialect name → default instrument description (instruments/<name>.toml)
DIALECTS = {"tek": "tek_dpo3000", "tek-dpo2000": "tek_dpo2000", "tek-dpo4000": "tek_dpo4000",
            "tek-mdo": "tek_mdo3000", "tek-mso5": "tek_mso5", "tek-tps2000": "tek_tds2000",
            "tek-dpo7000": "tek_dpo7000",
            "keysight": "keysight_dsox3000", "keysight-x2000": "keysight_dsox1000_2000"}
#: the dialects a default charz session (10 000-point records, charz's drivers) runs on; the
#: others are there for public clients (tek-tps2000, tek-dpo7000: no charz driver) or need
#: other sample intervals (tek-dpo2000: 125 k or 1.25 M points, samples 1.6 or 3.2 us apart).
SESSION_DIALECTS = ("tek", "tek-dpo4000", "tek-mdo", "tek-mso5", "keysight", "keysight-x2000")
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_POLL_S = 0.2


class _Connection:
    """One client of the SCPI port; lines in, response messages out."""

    def __init__(self, server: MockScopeServer, sock: socket.socket):
        self.server = server
        self.sock = sock
        self.last_reply: bytes | None = None
        self.closed = False

    def alive(self) -> bool:
        if self.closed or self.server.stopping:
            return False
        try:
            ready, _, _ = select.select([self.sock], [], [], 0)
            if ready and self.sock.recv(1, socket.MSG_PEEK) == b"":
                return False
        except OSError:
            return False
        return True

    def serve(self) -> None:
        buf = bytearray()
        try:
            # inside the try: stop() may close the socket before this thread first runs (EBADF)
            self.sock.settimeout(_POLL_S)
            while not self.server.stopping and not self.closed:
                try:
                    chunk = self.sock.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf and not self.closed:
                    line, _, rest = bytes(buf).partition(b"\n")
                    buf = bytearray(rest)
                    self.handle(line.decode("latin-1").rstrip("\r"))
        except OSError:
            pass
        finally:
            self.close()

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def handle(self, line: str) -> None:
        server = self.server
        if not line.strip():
            return
        try:
            units = split_message(line, [])
        except ScpiError as exc:
            with server.lock:
                server.dialect.status.record(exc.code, exc.message)
            return
        replies: list[Reply] = []
        for unit in units:
            with server.lock:
                server.before_unit(unit.text)
                result = server.dialect.execute(unit)
            server.spend(server.timing.query_s if unit.query else server.timing.command_s)
            if isinstance(result, Wait):
                if not result.until(self.alive):
                    return  # the client hung up (or the server stops) while waiting
                result = result.then()
            if isinstance(result, Reply):
                replies.append(result)
        if replies:
            self.send(replies)

    def send(self, replies: list[Reply]) -> None:
        faults = self.server.faults
        texts = [r.unit_text for r in replies]
        if any(faults.take("no_reply", t) for t in texts):
            return
        if any(faults.take("stale_reply", t) for t in texts):
            message = self.last_reply
            if message is None:
                return
            self._deliver(message, texts[0])
            return
        parts = []
        for r in replies:
            data = r.data
            if r.kind == "idn" and (f := faults.take("wrong_idn", r.unit_text)):
                data = f.idn.encode("latin-1")
            if r.kind == "preamble" and (f := faults.take("bad_preamble", r.unit_text)):
                data = self.server.dialect.corrupt_preamble(data, f.mode)  # type: ignore[attr-defined]
            parts.append((r, data))
        message = bytearray()
        for i, (r, data) in enumerate(parts):
            if i:
                message += b";"
            if r.kind == "block":
                cut = self._block_fault(r, data, message)
                if cut is not None:
                    return
                if f := faults.take("long_block", r.unit_text):
                    start = _payload_start(data)
                    extra = (data[start:] * (f.extra_bytes // max(len(data) - start, 1) + 1))[:f.extra_bytes]
                    data = data + extra
            message += data
        message += b"\n"
        self.last_reply = out = bytes(message)  # one copy: a 1 M-point block is 2 MB
        if any(r.kind == "block" for r, _ in parts):
            self.server.spend(self.server.timing.transfer_s(len(out)))  # the link's rate
        self._deliver(out, texts[0])

    def _block_fault(self, r: Reply, data: bytes, before: bytearray) -> bool | None:
        faults = self.server.faults
        f = faults.take("truncated_block", r.unit_text) or faults.take("drop_mid_block", r.unit_text)
        if f is None:
            return None
        start = _payload_start(data)
        keep = start + int((len(data) - start) * f.fraction)
        self._deliver(bytes(before) + data[:keep], r.unit_text)
        if f.kind == "drop_mid_block":
            self.close()
        return True

    def _deliver(self, message: bytes, unit_text: str) -> None:
        if f := self.server.faults.take("slow", unit_text):
            end = time.monotonic() + f.delay_s
            while time.monotonic() < end and self.alive():
                time.sleep(min(0.02, max(end - time.monotonic(), 0)))
        try:
            self.sock.sendall(message)
        except OSError:
            self.close()


def _payload_start(block_reply: bytes) -> int:
    """Index of the first data byte of an IEEE definite block inside a reply."""
    i = block_reply.index(b"#")
    n = int(block_reply[i + 1:i + 2])
    return i + 2 + n


class MockScopeServer:
    """The mock scope: SCPI port + control port on loopback, threads, injected source.

    Parameters
    ----------
    source : CurrentSource, optional
        What the current probe on ``probe_channel`` sees (default: a pulse train per I/O).
    dialect : str
        ``tek``, ``tek-mdo``, ``tek-mso5`` or ``keysight``.
    model : str, optional
        An ``instruments/*.toml`` name overriding the dialect's default model.
    host, port, control_port : str, int, int
        Loopback only; port 0 picks a free port (see :attr:`port`, :attr:`control_port`).
    faults : iterable of Fault or str
        Faults active from the start (``"slow:delay_s=0.5"``).
    probe : str
        ``current`` (the probe reports A) or ``voltage`` (a shunt: the channel reads V
        until YUNits is set).
    time_scale, trigger_search_s, auto_trigger_s : float
        See :class:`charz.sim._scpi_acquire.Engine`.  ``time_scale=1`` (``charz mock-scope
        --realtime``) also charges the model's ``[timing]`` costs: per command, per query,
        per waveform byte over the link, arming and processing.
    idn : str, optional
        Override of the model's ``*IDN?`` answer.
    """

    def __init__(self, source: CurrentSource | None = None, *, dialect: str = "tek",
                 model: str | None = None, host: str = "127.0.0.1", port: int = 0,
                 control_port: int = 0, faults: Iterable[Fault | str | dict[str, Any]] = (),
                 probe: str = "current", probe_channel: int = 1, time_scale: float = 0.0,
                 trigger_search_s: float = 1.0, auto_trigger_s: float = 0.05,
                 idn: str | None = None, models_dir: str | None = None):
        if host not in _LOOPBACK:
            raise UsageError(f"the mock scope binds to loopback only, not {host!r}",
                             hint="use 127.0.0.1")
        if dialect not in DIALECTS:
            raise UsageError(f"unknown dialect {dialect!r}", hint=f"use one of {', '.join(DIALECTS)}")
        if probe not in ("current", "voltage"):
            raise UsageError(f"probe must be 'current' or 'voltage', not {probe!r}")
        self.source = source if source is not None else PulseTrainSource()
        self.dialect_name = dialect
        self.model = load_model(model or DIALECTS[dialect], models_dir)
        try:
            self.faults = FaultBook([parse_fault(f) for f in faults])
        except (TypeError, ValueError) as exc:
            raise UsageError(f"bad fault: {exc}", hint=f"fault kinds: {', '.join(FAULT_KINDS)}") from exc
        self.host = host
        self._want_ports = (port, control_port)
        self.lock = threading.RLock()
        self.stopping = False
        # time_scale 1 (--realtime): the model's [timing] too, each cost scaled alike.
        self.timing = self.model.timing
        self.time_scale = time_scale
        self.engine = Engine(self.source, probe_channel=probe_channel, time_scale=time_scale,
                             trigger_search_s=trigger_search_s, auto_trigger_s=auto_trigger_s,
                             gain=self._gain, arm_s=self.timing.arm_s,
                             processing_s=self.timing.processing_s)
        kwargs = dict(idn=idn, probe=probe, probe_channel=probe_channel)
        self.dialect: Dialect = (KeysightDialect(self.model, self.engine, **kwargs) if dialect.startswith("keysight")
                                 else TekDialect(self.model, self.engine, **kwargs))
        self._listeners: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._connections: list[_Connection] = []
        self.port = 0
        self.control_port = 0
        self.last_io: dict[str, Any] | None = None

    # ------------------------------------------------------------ lifecycle

    @property
    def resource(self) -> str:
        """The VISA resource string a client opens."""
        return f"TCPIP::{self.host}::{self.port}::SOCKET"

    def start(self) -> MockScopeServer:
        scpi = self._listen(self._want_ports[0])
        control = self._listen(self._want_ports[1])
        self.port = scpi.getsockname()[1]
        self.control_port = control.getsockname()[1]
        self._spawn(self._accept, scpi, self._serve_scpi)
        self._spawn(self._accept, control, self._serve_control)
        return self

    def stop(self) -> None:
        self.stopping = True
        for sock in self._listeners:
            try:
                sock.close()
            except OSError:
                pass
        for t in list(self._threads[:2]):  # the accept loops first: then no client thread starts
            t.join(timeout=2.0)
        for conn in list(self._connections):
            conn.close()
        for t in list(self._threads[2:]):  # each client's thread ends at its next poll
            t.join(timeout=2.0)

    def __enter__(self) -> MockScopeServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Block until :meth:`stop` (or Ctrl-C in the caller)."""
        while not self.stopping:
            time.sleep(_POLL_S)

    def _listen(self, port: int) -> socket.socket:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, port))
        except OSError as exc:
            sock.close()
            raise UsageError(f"cannot listen on {self.host}:{port}: {exc.strerror}",
                             hint="pick another port, or 0 for a free one") from exc
        sock.listen(8)
        sock.settimeout(_POLL_S)
        self._listeners.append(sock)
        return sock

    def _spawn(self, target: Any, *args: Any) -> None:
        t = threading.Thread(target=target, args=args, daemon=True)
        t.start()
        self._threads.append(t)

    def _accept(self, listener: socket.socket, serve: Any) -> None:
        while not self.stopping:
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._spawn(serve, sock)  # tracked, so stop() waits for it

    def _serve_scpi(self, sock: socket.socket) -> None:
        conn = _Connection(self, sock)
        self._connections.append(conn)
        try:
            conn.serve()
        finally:
            self._connections.remove(conn)

    # ------------------------------------------------------------ faults and physics

    def spend(self, seconds: float) -> None:
        """Take as long as the modelled scope would (``time_scale`` 0: no time at all)."""
        if seconds > 0 and self.time_scale > 0:
            time.sleep(seconds * self.time_scale)

    def _gain(self, forced: bool = False) -> float:
        fault = self.faults.peek("over_range") if forced else self.faults.take("over_range")
        return fault.gain if fault else 1.0

    def before_unit(self, unit_text: str) -> None:
        """Faults that act when a command arrives (called with the lock held)."""
        if f := self.faults.take("error_queue", unit_text):
            self.dialect.status.record(f.code, f.message)
        if f := self.faults.take("reset", unit_text):
            self.dialect.factory_reset(power_cycle=f.power_cycle)  # type: ignore[attr-defined]

    def add_fault(self, fault: Fault | str | dict[str, Any]) -> Fault:
        parsed = parse_fault(fault)
        self.faults.add(parsed)
        return parsed

    def clear_faults(self) -> None:
        self.faults.clear()

    def host_io(self, op: str, size_bytes: int, offset_bytes: int) -> dict[str, Any]:
        """A host I/O reached the drive (what the control channel's ``io`` does)."""
        if op not in ("read", "write", "trim", "flush"):
            raise ValueError(f"op must be read, write, trim or flush, not {op!r}")
        if int(size_bytes) < 0 or int(offset_bytes) < 0:
            raise ValueError("size_bytes and offset_bytes must be >= 0")
        self.faults.note_io()  # for faults scheduled at_capture=k
        no_trigger = self.faults.take("no_trigger") is not None
        result = self.engine.host_io(op, int(size_bytes), int(offset_bytes), no_trigger=no_trigger)
        self.last_io = {"op": op, "size_bytes": int(size_bytes), "offset_bytes": int(offset_bytes),
                        **result}
        return result

    def status(self) -> dict[str, Any]:
        latest = self.engine.latest()
        return {
            "dialect": self.dialect_name, "model": self.model.name, "port": self.port,
            "control_port": self.control_port, "resource": self.resource,
            "trigger_state": self.engine.trigger_state(), "acquisitions": self.engine.count,
            "last_trigger_s": latest.trigger_s if latest else None,
            "last_forced": latest.forced if latest else None,
            "faults": [f.kind for f in self.faults.active()], "last_io": self.last_io,
        }

    # ------------------------------------------------------------ control channel

    def _control(self, message: dict[str, Any]) -> dict[str, Any]:
        if "io" in message:
            io = message["io"]
            return {"ok": True, **self.host_io(io.get("op", "write"), io["size_bytes"],
                                               io.get("offset_bytes", 0))}
        if "fault" in message:
            self.add_fault(message["fault"])
            return {"ok": True, "faults": [f.kind for f in self.faults.active()]}
        if message.get("clear_faults"):
            self.clear_faults()
            return {"ok": True, "faults": []}
        if message.get("status"):
            return {"ok": True, **self.status()}
        raise ValueError(f"unknown control message keys {sorted(message)} "
                         "(use io, fault, clear_faults or status)")

    def _serve_control(self, sock: socket.socket) -> None:
        buf = b""
        try:
            sock.settimeout(_POLL_S)
            while not self.stopping:
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if not line.strip():
                        continue
                    try:
                        message = json.loads(line)
                        if not isinstance(message, dict):
                            raise ValueError("a control message is a JSON object")
                        reply = self._control(message)
                    except (ValueError, KeyError, TypeError) as exc:
                        reply = {"ok": False, "error": str(exc)}
                    sock.sendall(json.dumps(reply).encode() + b"\n")
        except OSError:
            pass
        finally:
            sock.close()


class MockScopeControl:
    """A client of the mock scope's control channel (JSON lines over loopback TCP).

    Example
    -------
    >>> ctl = MockScopeControl(port)                                     # doctest: +SKIP
    >>> ctl.io("write", 32768, 1 << 20)["triggered"]                     # doctest: +SKIP
    True
    """

    def __init__(self, port: int, host: str = "127.0.0.1", timeout_s: float = 5.0):
        self._sock = socket.create_connection((host, port), timeout=timeout_s)
        self._buf = b""

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self._sock.sendall(json.dumps(message).encode() + b"\n")
        while b"\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError("the mock scope closed its control channel")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        reply = json.loads(line)
        if not reply.get("ok"):
            raise ValueError(reply.get("error", "control request failed"))
        return reply

    def io(self, op: str, size_bytes: int, offset_bytes: int = 0) -> dict[str, Any]:
        return self.request({"io": {"op": op, "size_bytes": size_bytes, "offset_bytes": offset_bytes}})

    def fault(self, kind: str, **params: Any) -> dict[str, Any]:
        return self.request({"fault": {"kind": kind, **params}})

    def clear_faults(self) -> dict[str, Any]:
        return self.request({"clear_faults": True})

    def status(self) -> dict[str, Any]:
        return self.request({"status": True})

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> MockScopeControl:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
