"""The real ``sigrok-cli`` as charz's logic-analyser transport: argv builders and a chunk stream.

A bench streams ``sigrok-cli -d DRIVER --config samplerate=R --continuous -C CH
-O binary`` from stdout; the mock bench reads a session file back with
``sigrok-cli -i FILE -O binary``.  Either way charz parses sigrok's bytes: one
unit per sample, bit k of a unit is the k-th channel of the device (``-C`` only
chooses what is acquired, it does not repack the bits), so D3 is bit 3.  That is
fx2lafw's way (the board always sends all 8 channels).  Not every driver does it:
sigrok's ``demo`` driver packs the enabled channels from bit 0 (seen with sigrok-cli
0.7.2: ``-C D3`` gives 0/1, ``-C D2,D5`` gives 0–3), so on such a driver name
channels from D0 up (D0, or D0,D1,…), where both readings agree.

sigrok-cli quirks this module handles (sigrok-cli 0.7.2, seen on this machine):

* ``--continuous`` prints "Press any key to stop acquisition" and stops as soon as
  stdin reaches EOF — with stdin at /dev/null it ends at once with no data and
  exit code 0.  charz gives it a pipe and stops it by writing a newline.
* an unknown channel is reported on stderr with exit code 0 and no data, so "no
  bytes and something on stderr" is an error too.
* reading a VCD, CSV or raw binary file, ``-O binary`` writes the input's meta packet
  as a text line first (``META samplerate: 1000000``); a session file (.sr) does not.
  :class:`SigrokStream` with ``strip_meta`` takes such lines off the front and keeps
  the samplerate they name.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from charz.errors import LogicError, UsageError

__all__ = ["LogicSpec", "parse_logic_spec", "channel_bit", "find_sigrok_cli", "stream_argv", "file_argv",
           "SigrokStream", "FileInfo", "parse_show", "show_file"]

_INSTALL_HINT = "install it: apt-get install sigrok-cli (Debian/Ubuntu), or name it: --sigrok-cli PATH"


@dataclass(frozen=True)
class LogicSpec:
    """``DRIVER:CH[,CH…]`` from the command line: sigrok driver (with its own ``:key=value``
    options) and the R/B channel of one die or several (``channel``/``bit``: the first)."""

    driver: str
    channel: str
    bit: int
    channels: tuple[str, ...] = ()
    bits: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.channels:
            object.__setattr__(self, "channels", (self.channel,))
            object.__setattr__(self, "bits", (self.bit,))


def channel_bit(name: str) -> int:
    """Bit of a sigrok channel name in a sample unit: ``D3`` → 3, ``7`` → 7.

    >>> channel_bit("D3"), channel_bit("0"), channel_bit("CH12")
    (3, 0, 12)
    """
    m = re.fullmatch(r"[A-Za-z_]*([0-9]+)", name.strip())
    if not m:
        raise UsageError(f"cannot tell which bit logic channel {name!r} is",
                         hint="name it by number as sigrok does (D0, D1, ... or 0, 1, ...)")
    return int(m.group(1))


def parse_logic_spec(spec: str) -> LogicSpec:
    """``fx2lafw:D0``, ``fx2lafw:conn=1.5:D2`` or ``fx2lafw:D0,D1,D2`` → driver and channel(s) (the last ``:`` field).

    >>> parse_logic_spec("fx2lafw:conn=1.5:D2")
    LogicSpec(driver='fx2lafw:conn=1.5', channel='D2', bit=2, channels=('D2',), bits=(2,))
    >>> parse_logic_spec("fx2lafw:D0,D3").bits
    (0, 3)
    """
    driver, sep, ch = spec.rpartition(":")
    names = tuple(x.strip() for x in ch.split(",") if x.strip())
    if not sep or not driver or not names:
        raise UsageError(f"--logic wants DRIVER:CHANNEL[,CHANNEL…] (e.g. fx2lafw:D0 or fx2lafw:D0,D1), not {spec!r}")
    bits = tuple(channel_bit(x) for x in names)
    if len(set(bits)) != len(bits):
        raise UsageError(f"--logic names a channel twice: {ch!r}")
    return LogicSpec(driver, names[0], bits[0], names, bits)


def find_sigrok_cli(path: str | None = None) -> str:
    exe = shutil.which(path or "sigrok-cli")
    if exe is None:
        raise LogicError(f"{path or 'sigrok-cli'} not found", hint=_INSTALL_HINT)
    return exe


def stream_argv(driver: str, channel: str, samplerate_hz: float, *, sigrok: str = "sigrok-cli") -> list[str]:
    """Continuous acquisition of one channel to stdout as raw bytes.

    >>> stream_argv("fx2lafw", "D0", 4e6, sigrok="sigrok-cli")
    ['sigrok-cli', '-d', 'fx2lafw', '--config', 'samplerate=4000000', '--continuous', '-C', 'D0', '-O', 'binary']

    ``channel`` may be several, comma-separated (``D0,D1``): each keeps its bit.
    """
    if not (samplerate_hz > 0 and float(samplerate_hz).is_integer()):
        raise UsageError(f"the samplerate is a whole number of Hz, not {samplerate_hz}")
    return [sigrok, "-d", driver, "--config", f"samplerate={int(samplerate_hz)}", "--continuous",
            "-C", channel, "-O", "binary"]


def file_argv(path: str | os.PathLike, *, sigrok: str = "sigrok-cli", input_format: str | None = None,
              show: bool = False) -> list[str]:
    """Read a recorded file (any input format sigrok-cli reads) as raw bytes, or ``--show`` it.

    >>> file_argv("t.vcd", input_format="vcd", sigrok="sigrok-cli")
    ['sigrok-cli', '-i', 't.vcd', '-I', 'vcd', '-O', 'binary']
    """
    argv = [sigrok, "-i", os.fspath(path)] + (["-I", input_format] if input_format else [])
    return argv + (["--show"] if show else ["-O", "binary"])


@dataclass(frozen=True)
class FileInfo:
    """What ``sigrok-cli -i FILE --show`` says about a recording."""

    samplerate_hz: float | None
    channels: tuple[str, ...]     # logic channels in the order of their bits
    unitsize: int
    samples: int | None


def parse_show(text: str) -> FileInfo:
    r"""Parse ``sigrok-cli -i FILE --show`` (sigrok-cli 0.7).

    >>> parse_show("Samplerate: 250000\nChannels: 2\n- RB0: logic\n- RB1: logic\nLogic unitsize: 1\n"
    ...            "Logic sample count: 5\n")
    FileInfo(samplerate_hz=250000.0, channels=('RB0', 'RB1'), unitsize=1, samples=5)
    """
    rate = re.search(r"^Samplerate:\s*([0-9.]+)", text, re.M)
    unit = re.search(r"^Logic unitsize:\s*([0-9]+)", text, re.M)
    count = re.search(r"^Logic sample count:\s*([0-9]+)", text, re.M)
    chans = tuple(m.group(1) for m in re.finditer(r"^- (.*): logic\s*$", text, re.M))
    return FileInfo(float(rate.group(1)) if rate and float(rate.group(1)) > 0 else None, chans,
                    int(unit.group(1)) if unit else 1, int(count.group(1)) if count else None)


def show_file(path: str | os.PathLike, *, sigrok: str = "sigrok-cli", input_format: str | None = None,
              timeout_s: float = 600.0) -> FileInfo:
    """Ask sigrok-cli what a recording holds (it reads the whole file once)."""
    argv = file_argv(path, sigrok=sigrok, input_format=input_format, show=True)
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s)
    except OSError as exc:
        raise LogicError(f"cannot start {sigrok}: {exc}", hint=_INSTALL_HINT) from exc
    except subprocess.TimeoutExpired as exc:
        raise LogicError(f"sigrok-cli took over {timeout_s:g} s to read {path}") from exc
    info = parse_show(p.stdout)
    if p.returncode != 0 or not info.channels:
        raise LogicError(f"sigrok-cli cannot read {path}"
                         + (f" as {input_format}" if input_format else "") + f": {_tail(p.stderr or p.stdout)}",
                         hint="name its format and options: --input-format vcd | csv:samplerate=1000000 | "
                              "binary:samplerate=1000000:numchannels=8 (sigrok-cli --show -I FORMAT lists them)")
    return info


class SigrokStream:
    """``sigrok-cli`` as a child process whose stdout is read in chunks.

    Iterate for uint8 chunks (whole sample units).  :meth:`stop` asks a
    continuous acquisition to end (the rest of its output is still yielded).
    Errors are :class:`~charz.errors.LogicError`, raised after every byte read so
    far has been yielded, so a caller's counts up to the failure stay valid.

    Parameters
    ----------
    argv : list of str
        From :func:`stream_argv` or :func:`file_argv`.
    stall_timeout_s : float
        No byte for this long while running: the analyser stopped (USB unplugged,
        buffer overrun) — an error, not a silent end.
    """

    def __init__(self, argv: Sequence[str], *, unitsize: int = 1, chunk_bytes: int = 1 << 20,
                 stall_timeout_s: float = 10.0, strip_meta: bool = False) -> None:
        self.argv = list(argv)
        self.strip_meta = strip_meta
        self.meta_samplerate_hz: float | None = None
        self.unitsize = unitsize
        self.chunk_bytes = max(chunk_bytes - chunk_bytes % unitsize, unitsize)
        self.stall_timeout_s = stall_timeout_s
        self.bytes_read = 0
        self.returncode: int | None = None
        self.stderr_text = ""
        self._stopping = False
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE)
        except OSError as exc:
            raise LogicError(f"cannot start {self.argv[0]}: {exc}", hint=_INSTALL_HINT) from exc

    def __iter__(self) -> Iterator[np.ndarray]:
        out = self._proc.stdout.fileno()
        err = self._proc.stderr.fileno()
        os.set_blocking(out, False)
        os.set_blocking(err, False)
        carry = b""
        errbuf = bytearray()
        last = time.monotonic()
        open_fds = {out, err}
        while out in open_fds:
            ready, _, _ = select.select(list(open_fds), [], [], 0.5)
            if err in ready:
                b = os.read(err, 65536)
                errbuf += b
                if not b:
                    open_fds.discard(err)
            if out in ready:
                b = os.read(out, self.chunk_bytes)
                if not b:
                    open_fds.discard(out)
                    continue
                last = time.monotonic()
                self.bytes_read += len(b)
                b = carry + b
                if self.strip_meta:
                    rest = self._take_meta(b)
                    if rest is None:  # a META line not complete yet: wait for more
                        carry = b
                        continue
                    b = rest
                cut = len(b) - len(b) % self.unitsize
                carry = b[cut:]
                if cut:
                    yield np.frombuffer(b[:cut], np.uint8)
            elif not ready and time.monotonic() - last > self.stall_timeout_s and not self._stopping:
                self.stderr_text = errbuf.decode(errors="replace")
                self.close()
                raise LogicError(
                    f"the logic analyser sent nothing for {self.stall_timeout_s:g} s "
                    f"after {self.bytes_read} bytes; it stopped or was unplugged",
                    hint="check the USB connection and that the samplerate is one it can stream; "
                         "the counts so far are kept")
        self.returncode = self._proc.wait()
        with _suppress_oserror():
            errbuf += self._proc.stderr.read() or b""
        self.stderr_text = errbuf.decode(errors="replace").strip()
        if self.returncode != 0 and not (self._stopping and self.returncode in (-signal.SIGINT, -signal.SIGTERM)):
            raise LogicError(f"sigrok-cli exited with code {self.returncode} after {self.bytes_read} bytes: "
                             f"{_tail(self.stderr_text)}",
                             hint="the counts so far are kept; fix what sigrok-cli says and run again")
        if self.bytes_read == 0 and self.stderr_text:
            raise LogicError(f"sigrok-cli gave no samples: {_tail(self.stderr_text)}",
                             hint="check the driver and channel names with: sigrok-cli -d DRIVER --show")

    def _take_meta(self, b: bytes) -> bytes | None:
        r"""Strip ``META ...\n`` lines off the stream's front; None while one is incomplete."""
        while True:
            if len(b) < 5 and b"META ".startswith(b):
                return None if b else b
            if not b.startswith(b"META "):
                self.strip_meta = False
                return b
            nl = b.find(b"\n")
            if nl < 0:
                return None
            m = re.match(rb"META samplerate: *([0-9]+)", b[:nl])
            if m:
                self.meta_samplerate_hz = float(m.group(1))
            b = b[nl + 1:]

    def stop(self) -> None:
        """End a continuous acquisition the way a user at the terminal would: a key on stdin."""
        self._stopping = True
        if self._proc.poll() is None and self._proc.stdin and not self._proc.stdin.closed:
            with _suppress_oserror():
                self._proc.stdin.write(b"\n")
                self._proc.stdin.flush()
                self._proc.stdin.close()

    def close(self) -> None:
        """Stop, then terminate and reap the child if it does not end within 2 s."""
        self.stop()
        try:
            self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            with _suppress_oserror():  # a stopped (frozen) child must run again to act on SIGTERM
                self._proc.send_signal(signal.SIGCONT)
            self._proc.terminate()
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for f in (self._proc.stdout, self._proc.stderr):
            with _suppress_oserror():
                f.close()

    def __enter__(self) -> "SigrokStream":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _tail(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else "…" + text[-n:]


class _suppress_oserror:
    def __enter__(self) -> None:
        return None

    def __exit__(self, et, ev, tb) -> bool:
        return et is not None and issubclass(et, (OSError, ValueError))
