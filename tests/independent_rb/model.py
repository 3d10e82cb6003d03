"""What one NAND die's R/B pin does during a workload, from paper 000 (and a datasheet's habits).

000's words this follows:

* §3.1: R/B is open-drain, active low; low while the die reads, programs or erases.
* Table 2 / §4.3: programs take 200–2200 µs on MLC (lower-addressed pages shorter than
  upper ones), SLC 200–500 µs; a block erase ~2 ms (3.8 ms on SSD-M); reads ≤ 50–75 µs.
* §4.3: erases of ~2 ms can land inside the program window and be counted as programs.
* §4.2: programs may go on after the workload: N_Tprogram is read once R/B stayed high
  for five minutes.
* §3.2.3: every die does about the same work — here the dies may differ on purpose.

Assumed here (a datasheet's habits, not 000's): between two operations R/B stays high
for the command, address and data cycles and the controller's turnaround —
12–150 µs (a 4 KiB page at 40 MB/s takes ~100 µs to transfer); a garbage-collection
copy is a read then a program; one erase per block of ``pages_per_block`` programs.
Glitches are high blips of 0.02–1.99 µs inside a busy stretch (ringing on a probe lead).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class DieTrace:
    """Low intervals of one die (seconds), and what it truly did."""

    starts: np.ndarray
    widths: np.ndarray
    programs: int          # program pulses, the late ones included
    erases: int
    reads: int
    end_s: float           # where the recording of this die ends


@dataclass
class Scenario:
    """One workload on one drive, as 000 would record it."""

    name: str
    samplerate_hz: float = 1e6
    programs: int = 600              # host + GC program pulses per die (die 0), before late GC
    program_us: tuple = ((250, 850), (1150, 2100))   # lower and upper pages (MLC, 000 §4.3)
    read_us: tuple = (20, 70)
    gc_share: float = 0.3            # share of programs that are GC copies (each after a read)
    pages_per_block: int = 64        # one erase per this many programs
    erase_us: tuple | None = None    # None: 2.6–3.2 ms, well above 000's window
    erase_gap_us: tuple | None = None  # high gap before an erase (µs); an erase needs only its
                                       # command cycles, so it may follow a program within 1 µs
    glitches: int = 0                # high blips inside programs
    late_programs: int = 0           # background GC after the workload ends (000 §4.2)
    late_idle_s: float = 0.2
    cut_start: bool = False          # the recording begins inside a pulse
    cut_end_s: float | None = None   # the recording ends this long after the workload's last operation
    tail_s: float = 0.3              # R/B high after the last operation, in the recording
    die_programs: tuple = ()         # several dies: program pulses of each (die 0 first)
    seed: int = 0
    extra: dict = field(default_factory=dict)


def _one_die(sc: Scenario, programs: int, seed: int) -> DieTrace:
    rng = np.random.default_rng(seed)
    ops = []  # (kind, width µs)
    since_erase = 0
    erases = reads = 0
    for k in range(programs):
        if rng.random() < sc.gc_share:
            ops.append(("read", rng.uniform(*sc.read_us)))
            reads += 1
        lo, hi = sc.program_us[k % len(sc.program_us)]   # lower and upper pages alternate
        ops.append(("program", rng.uniform(lo, hi)))
        since_erase += 1
        if since_erase == sc.pages_per_block:
            e = sc.erase_us or (2600, 3200)
            ops.append(("erase", rng.uniform(*e)))
            erases += 1
            since_erase = 0
    late = []
    for _ in range(sc.late_programs):
        late.append(("read", rng.uniform(*sc.read_us)))
        lo, hi = sc.program_us[len(late) % len(sc.program_us)]
        late.append(("program", rng.uniform(lo, hi)))
    reads += sc.late_programs
    t = 500e-6
    starts, widths, kinds = [], [], []
    for k, (kind, w) in enumerate(ops):
        starts.append(t)
        widths.append(w * 1e-6)
        kinds.append(kind)
        nxt = ops[k + 1][0] if k + 1 < len(ops) else None
        gap = sc.erase_gap_us if nxt == "erase" and sc.erase_gap_us else (12, 150)
        t += w * 1e-6 + rng.uniform(*gap) * 1e-6
    work_end = t
    if late:
        t += sc.late_idle_s
        for kind, w in late:
            starts.append(t)
            widths.append(w * 1e-6)
            kinds.append(kind)
            t += w * 1e-6 + rng.uniform(12, 150) * 1e-6
    starts, widths = np.array(starts), np.array(widths)
    end = t + sc.tail_s if sc.cut_end_s is None else work_end + sc.cut_end_s
    keep = starts < end
    starts, widths = starts[keep], widths[keep]
    kinds = [k for k, m in zip(kinds, keep) if m]
    if sc.cut_start:  # the recording starts in the middle of the first pulse
        shift = starts[0] + widths[0] / 2
        starts, end = starts - shift, end - shift
    dt = DieTrace(starts, widths, programs + sc.late_programs, erases, reads, end)
    dt.kinds = kinds
    return dt


def glitched(dt: DieTrace, n: int, seed: int) -> list[tuple[float, float]]:
    """``n`` high blips of 0.02–1.99 µs, each inside a program pulse, away from its ends."""
    rng = np.random.default_rng(seed)
    progs = [i for i, k in enumerate(dt.kinds) if k == "program"]
    blips = []
    for i in rng.choice(progs, size=n, replace=len(progs) < n):
        w = rng.uniform(0.02, 1.99) * 1e-6
        at = dt.starts[i] + rng.uniform(0.1, 0.9) * dt.widths[i]
        blips.append((at, w))
    return blips


def make(sc: Scenario) -> dict:
    """Every die's low intervals (blips cut out of them), its truth and the recording's end."""
    counts = list(sc.die_programs) or [sc.programs]
    dies = [_one_die(sc, n, sc.seed * 100 + d) for d, n in enumerate(counts)]
    lows = []
    for d, dt in enumerate(dies):
        iv = list(zip(dt.starts, dt.starts + dt.widths))
        if sc.glitches and d == 0:
            for at, w in glitched(dt, sc.glitches, sc.seed + 7):
                for j, (a, b) in enumerate(iv):
                    if a < at < b:
                        iv[j:j + 1] = [(a, at), (at + w, b)]
                        break
        lows.append(iv)
    end = max(dt.end_s for dt in dies)
    return {"lows": lows, "end_s": end, "dies": dies}
