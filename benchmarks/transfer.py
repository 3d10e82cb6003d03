"""Waveform transfer throughput: charz's transports vs a raw socket vs ASCII, from the mock scope.

Runs the mock scope in its own process (so its Python thread does not share a GIL
with the client), acquires one record, then times the same ``CURVe?`` transfer

1. through charz's driver (``scope.fetch()`` on ``open_scope``'s transport — charz's
   own socket for this ``TCPIP::…::SOCKET`` resource: one compound query — data
   commands, preamble, acquisition count, block, ``*ESR?`` — and every check on the record),
2. through that transport's ``query_binary`` (:class:`SocketTransport`),
3. through :class:`PyVisaTransport`'s ``query_binary`` over pyvisa-py (pyvisa's public
   API only: what every other resource and VISA library gets; no goal here — pyvisa-py
   receives 4096 bytes per call and offers no public way to raise that),
4. through pyvisa's ``query_binary_values`` (for reference: what charz does not use),
5. through a plain socket reading exactly the announced bytes (the ceiling),
6. as ASCII (``DATa:ENCdg ASCIi``) through ``query_ascii_values``.

Rows 1, 2, 3 and 5 are interleaved on connections kept open, one of each per round in a
shuffled order (row 4, for reference, is timed after them), so a noisy machine slows
them alike; the ratios are given for the best times, the medians, and as the median of
the per-round ratios (the figure the goals are judged by).
A second record has its trace parked at ADC code 10 (0x0A, the newline byte) — a
current sitting at that code on an 8-bit scope does exactly this — where reads that
stop at the termination character crawl (see ``PyVisaTransport.query_binary``).

Goals: charz's default transfer (row 2) and charz's whole driver fetch >= 0.8 x raw
socket (median of rounds); binary >= 5 x ASCII (points/s).

Usage::

    python benchmarks/transfer.py [--points 1000000] [--width 2] [--repeats 30] [--chunk-kib 128]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import random
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pyvisa

from charz.scope import PyVisaTransport, ScopeSettings, SocketTransport, open_scope
from charz.sim.scope_server import MockScopeControl


def start_mock() -> tuple[subprocess.Popen, str, int]:
    # A plain pulse train behind the probe: what is transferred does not matter here, and the
    # default drive (mxp) idles above this benchmark's screen (0.7 A at the top), so its
    # rising edge never crossed the trigger and every run stopped at "no trigger".
    proc = subprocess.Popen([sys.executable, "-m", "charz", "mock-scope", "--preset", "pulse"], stdout=subprocess.PIPE,
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


class RawSocket:
    """The ceiling: send CURVe? and recv_into a preallocated buffer, exactly the announced bytes."""

    def __init__(self, port: int, n_bytes: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.prefix = b":CURVE #" + str(len(str(n_bytes))).encode() + str(n_bytes).encode()
        self.buf = bytearray(len(self.prefix) + n_bytes + 1)
        self.view = memoryview(self.buf)

    def read(self) -> None:
        self.sock.sendall(b"CURVe?\n")
        got, total = 0, len(self.buf)
        while got < total:
            got += self.sock.recv_into(self.view[got:], total - got)

    def check(self) -> None:
        assert self.buf[-1:] == b"\n" and bytes(self.buf[:len(self.prefix)]) == self.prefix, \
            "unexpected block framing"

    def close(self) -> None:
        self.sock.close()


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def interleaved(resource: str, port: int, n: int, width: int, settings: ScopeSettings | None,
                data_commands: str, repeats: int, chunk_bytes: int, qbv_repeats: int,
                reference: np.ndarray) -> dict[str, list[float]]:
    """Rounds of driver fetch / socket transport / pyvisa transport / query_binary_values /
    raw socket on one record.

    All readers stay connected (the mock serves each connection in its own thread) and
    each round times each once, in an order shuffled from round to round (a rotation kept
    each reader behind the same one, and the raw socket always ran right after the slow
    pyvisa-py reader), so a noisy moment or a warm cache favours none of them and the
    per-round ratios compare like with like.  ``settings=None`` leaves the driver out.
    """
    dtype = "h" if width == 2 else "b"
    transport = SocketTransport.open(resource, timeout_s=600.0)
    visa = PyVisaTransport.open(resource, timeout_s=600.0, chunk_bytes=chunk_bytes)
    readers: dict[str, object] = {}
    if settings is not None:
        scope = open_scope(resource, transport=transport)
        # The scope kept its settings and acquisition: the session only has to know them,
        # as RetryingScope does after a reconnect (fetch's preamble check proves them).
        scope._settings = settings  # noqa: SLF001
        readers["driver"] = scope.fetch
    for t in (transport, visa):
        t.write(data_commands)
        t.query("*OPC?")
    readers["charz"] = lambda: transport.query_binary("CURVe?", datatype=dtype, big_endian=False)
    readers["visa"] = lambda: visa.query_binary("CURVe?", datatype=dtype, big_endian=False)
    # The reference row on a pyvisa-py session of its own, set up as the driver sets a scope up.
    inst = pyvisa.ResourceManager("@py").open_resource(
        resource, read_termination="\n", write_termination="\n", timeout=600_000)
    inst.write(data_commands)
    inst.query("*OPC?")
    readers["qbv"] = lambda: inst.query_binary_values(
        "CURVe?", datatype=dtype, is_big_endian=False, container=np.array, chunk_size=chunk_bytes)
    raw = RawSocket(port, n * width)
    readers["raw"] = raw.read
    try:
        for name, read in readers.items():  # warm: every connection's thread is running
            if name != "qbv":  # (it crawls on the parked record)
                read()
        raw.check()
        for t in (transport, visa):
            assert np.array_equal(t.query_binary("CURVe?", datatype=dtype, big_endian=False),
                                  reference), "charz's transports must move the very record the driver fetched"
        times: dict[str, list[float]] = {name: [] for name in readers}
        names = [name for name in readers if name != "qbv"]
        shuffle = random.Random(26)  # the same orders every run
        for _ in range(repeats):
            for name in shuffle.sample(names, len(names)):
                times[name].append(timed(readers[name]))
        # The reference row apart: on the parked record one call takes a second or more.
        times["qbv"] = [timed(readers["qbv"]) for _ in range(qbv_repeats)]
    finally:
        raw.close()
        inst.close()
        visa.close()
        transport.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--width", type=int, default=2, choices=(1, 2))
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--chunk-kib", type=int, default=128, help="PyVisaTransport's read chunk (KiB)")
    ap.add_argument("--newline-points", type=int, default=100_000,
                    help="points of the record parked at code 0x0A (query_binary_values crawls there)")
    args = ap.parse_args()

    proc, resource, control_port = start_mock()
    try:
        port = int(resource.split("::")[2])
        n = args.points
        chunk = args.chunk_kib * 1024
        scope = open_scope(resource, timeout_s=10.0)
        settings = ScopeSettings(vertical_scale=0.1, vertical_position_div=-3.0, record_length=n,
                                 sample_interval_s=2e-6, trigger_level=0.3, width_bytes=args.width)
        scope.configure(settings)
        scope.arm()
        with MockScopeControl(control_port) as ctl:
            ctl.io("write", 32768, 0)
        scope.wait(10.0)
        reference = scope.fetch().codes  # warm-up
        data_commands = scope._data_commands(settings)  # noqa: SLF001 - the driver's own DATa setup

        scope.close()
        main_t = interleaved(resource, port, n, args.width, settings, data_commands, args.repeats,
                             chunk, args.repeats, reference)
        t_driver = main_t["driver"]

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

        # A new record with the trace moved to sit at ADC code 10.
        scope = open_scope(resource, timeout_s=10.0)
        cpd = scope.model.codes_per_div
        code8 = float(np.median(reference)) / (1 << (8 * (args.width - 1)))
        parked = replace(settings, vertical_position_div=settings.vertical_position_div + (10 - code8) / cpd,
                         record_length=args.newline_points, width_bytes=1)
        scope.configure(parked)
        scope.arm()
        with MockScopeControl(control_port) as ctl:
            ctl.io("write", 32768, 0)
        scope.wait(10.0)
        parked_ref = scope.fetch(max_clipped_fraction=1.0).codes  # the request's peak leaves the screen
        parked_commands = scope._data_commands(parked)  # noqa: SLF001
        scope.close()
        nl_t = interleaved(resource, port, args.newline_points, 1, None, parked_commands,
                           max(3, args.repeats // 3), chunk, 1, parked_ref)

    finally:
        proc.terminate()
        proc.wait(timeout=5)

    def row(name: str, times: list[float], n_bytes_moved: float, points: int) -> str:
        t, med = min(times), statistics.median(times)
        return (f"  {name:<36s} {t * 1e3:8.1f} ms (median {med * 1e3:7.1f})  {n_bytes_moved / t / 1e6:8.1f} MB/s  "
                f"{points / t / 1e6:7.2f} Mpoints/s")

    n_bytes = n * args.width
    def ratio(a: list[float], b: list[float]) -> str:
        """b's speed over a's (times b / times a): best, medians, and the median of per-round ratios."""
        rounds = statistics.median(y / x for x, y in zip(a, b))
        return (f"{min(b) / min(a):.2f} best, {statistics.median(b) / statistics.median(a):.2f} median, "
                f"{rounds:.2f} per round")
    print(f"CURVe? of {n} points x {args.width} B = {n_bytes / 1e6:.1f} MB from the mock scope "
          f"(best of {args.repeats}; pyvisa {pyvisa.__version__}, pyvisa-py "
          f"{importlib.metadata.version('pyvisa-py')}, reads of {args.chunk_kib} KiB)")
    print(row("charz driver fetch (with checks)", t_driver, n_bytes, n))
    print(row("charz socket transport block read", main_t["charz"], n_bytes, n))
    print(row("charz pyvisa transport (pyvisa-py)", main_t["visa"], n_bytes, n))
    print(row("pyvisa query_binary_values", main_t["qbv"], n_bytes, n))
    print(row("raw socket recv_into", main_t["raw"], n_bytes, n))
    print(row(f"ASCII CURVe? ({n_ascii} points)", t_ascii, n_ascii * 5.0, n_ascii))
    print(f"  socket transport / raw socket = {ratio(main_t['charz'], main_t['raw'])}   (goal >= 0.8)")
    print(f"  driver fetch / raw socket     = {ratio(t_driver, main_t['raw'])}   (goal >= 0.8)")
    print(f"  pyvisa transport / raw socket = {ratio(main_t['visa'], main_t['raw'])}   (no goal)")
    print(f"  binary / ASCII               = {(n / min(main_t['charz'])) / (n_ascii / min(t_ascii)):.1f}x points/s   (goal >= 5)")
    nl = args.newline_points
    share = np.count_nonzero(parked_ref.astype(np.int8).view(np.uint8) == 0x0A) / parked_ref.size
    print(f"CURVe? of {nl} points x 1 B parked at ADC code 10: {share:.0%} of the bytes are 0x0A")
    print(row("charz socket transport block read", nl_t["charz"], nl, nl))
    print(row("charz pyvisa transport (pyvisa-py)", nl_t["visa"], nl, nl))
    print(row("pyvisa query_binary_values (1 run)", nl_t["qbv"], nl, nl))
    print(row("raw socket recv_into", nl_t["raw"], nl, nl))
    print(f"  socket transport / raw socket = {ratio(nl_t['charz'], nl_t['raw'])}; pyvisa transport / raw "
          f"= {ratio(nl_t['visa'], nl_t['raw'])}; query_binary_values / raw = {min(nl_t['raw']) / min(nl_t['qbv']):.3f}")


if __name__ == "__main__":
    main()
