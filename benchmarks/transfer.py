"""Waveform transfer throughput: pyvisa-py vs a raw socket vs ASCII, from the mock scope.

Runs the mock scope in its own process (so its Python thread does not share a GIL
with the client), acquires one record, then times the same ``CURVe?`` transfer

1. through charz's driver (``scope.fetch()``: preamble, block, checks),
2. through pyvisa-py's ``query_binary_values`` alone (what the driver uses),
3. through a plain socket reading exactly the announced bytes (the ceiling),
4. as ASCII (``DATa:ENCdg ASCIi``) through ``query_ascii_values``.

Goals: pyvisa >= 0.8 x raw socket; binary >= 5 x ASCII (points/s).

Usage::

    python benchmarks/transfer.py [--points 1000000] [--width 2] [--repeats 30] [--chunk-kib 64]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time

import numpy as np
import pyvisa

from charz.scope import PyVisaTransport, ScopeSettings, open_scope
from charz.sim.scope_server import MockScopeControl


def start_mock() -> tuple[subprocess.Popen, str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "charz", "mock-scope"], stdout=subprocess.PIPE,
                            text=True)
    resource = control = None
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("resource"):
            resource = line.split()[1]
        if line.startswith("control port"):
            control = int(line.split()[2])
        if resource and control:
            return proc, resource, control
    raise RuntimeError("the mock scope did not start")


def best(times: list[float]) -> float:
    return min(times)


def raw_socket_read(port: int, n_bytes: int, header_on: bool) -> float:
    """Send CURVe? and read the reply with recv_into into a preallocated buffer."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        prefix = (b":CURVE " if header_on else b"") + b"#" + str(len(str(n_bytes))).encode() \
            + str(n_bytes).encode()
        total = len(prefix) + n_bytes + 1
        buf = bytearray(total)
        view = memoryview(buf)
        t0 = time.perf_counter()
        sock.sendall(b"CURVe?\n")
        got = 0
        while got < total:
            got += sock.recv_into(view[got:], total - got)
        elapsed = time.perf_counter() - t0
        assert buf[-1:] == b"\n" and bytes(buf[:len(prefix)]) == prefix, "unexpected block framing"
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--width", type=int, default=2, choices=(1, 2))
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--chunk-kib", type=int, default=64, help="pyvisa chunk / recv size (KiB)")
    args = ap.parse_args()

    proc, resource, control_port = start_mock()
    try:
        port = int(resource.split("::")[2])
        n = args.points
        transport = PyVisaTransport.open(resource, timeout_s=10.0, chunk_bytes=args.chunk_kib * 1024)
        scope = open_scope(resource, timeout_s=10.0, transport=transport)
        settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=n,
                                 sample_interval_s=2e-6, trigger_level=0.3, width_bytes=args.width)
        scope.configure(settings)
        scope.arm()
        with MockScopeControl(control_port) as ctl:
            ctl.io("write", 32768, 0)
        scope.wait(10.0)
        scope.fetch()  # warm-up; also leaves DATa:* set for the raw reads below
        n_bytes = n * args.width

        t_driver = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            scope.fetch()
            t_driver.append(time.perf_counter() - t0)

        dtype = "h" if args.width == 2 else "b"
        reference = scope.fetch().codes
        t_visa = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            # The driver leaves SRIbinary (LSB first) set: the same bytes it fetches.
            data = transport.query_binary("CURVe?", datatype=dtype, big_endian=False, timeout_s=30)
            t_visa.append(time.perf_counter() - t0)
        assert np.array_equal(data, reference), "the pyvisa row must move the very record the driver fetches"

        scope.close()
        t_raw = [raw_socket_read(port, n_bytes, header_on=True) for _ in range(args.repeats)]

        rm = pyvisa.ResourceManager("@py")
        inst = rm.open_resource(resource, read_termination="\n", write_termination="\n", timeout=60_000)
        # The DPO3000 sends at most 1 M points as ASCII; compare per point.
        n_ascii = min(n, 1_000_000)
        inst.write(f"HEADer OFF;:DATa:ENCdg ASCIi;:DATa:STOP {n_ascii}")
        t_ascii = []
        for _ in range(max(1, args.repeats // 2)):
            t0 = time.perf_counter()
            values = inst.query_ascii_values("CURVe?", container=np.array, converter="d")
            t_ascii.append(time.perf_counter() - t0)
            assert values.size == n_ascii
        inst.write(f"DATa:ENCdg SRIbinary;:DATa:STOP {n};:HEADer ON")
        inst.close()
    finally:
        proc.terminate()
        proc.wait(timeout=5)

    def row(name: str, seconds: float, n_bytes_moved: float, points: int = n) -> str:
        return (f"  {name:<34s} {seconds * 1e3:8.1f} ms  {n_bytes_moved / seconds / 1e6:8.1f} MB/s  "
                f"{points / seconds / 1e6:7.2f} Mpoints/s")

    ascii_bytes = float(n_ascii * 5)  # ~5 characters per point on the wire
    tv, tr, ta, td = best(t_visa), best(t_raw), best(t_ascii), best(t_driver)
    print(f"CURVe? of {n} points x {args.width} B = {n_bytes / 1e6:.1f} MB from the mock scope "
          f"(best of {args.repeats}; pyvisa {pyvisa.__version__}, chunk {args.chunk_kib} KiB)")
    print(row("charz driver fetch (with checks)", td, n_bytes))
    print(row("pyvisa-py query_binary_values", tv, n_bytes))
    print(row("raw socket recv_into", tr, n_bytes))
    print(row(f"ASCII CURVe? ({n_ascii} points)", ta, ascii_bytes, n_ascii))
    print(f"  pyvisa / raw socket = {tr / tv:.2f}   (goal >= 0.8)")
    print(f"  driver / raw socket = {tr / td:.2f}")
    print(f"  binary / ASCII      = {(n / tv) / (n_ascii / ta):.1f}x points/s   (goal >= 5)")
    print(f"  spread of pyvisa runs: median {statistics.median(t_visa) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
