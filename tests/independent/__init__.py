"""An independent waveform generator: drives charz was not written around.

Written from paper 003's text alone (§2, §4, §5) with a real bench's nuisances (and
issue 22's: transfer current, read shoulders, per-page reads, interleaved dies, 2/4 µs
sampling, bench noise, coarse 8-bit screens — ``drive.NUISANCES``, each drawn at random), it
shares no code and no constants with ``charz.sim`` or ``charz.analysis``: it imports
numpy and the standard library only, and writes the archive format that
docs/archive.md documents.  ``score`` (the one module that imports charz) runs charz's
analysis on such an archive and grades every field a profile states against the
drive's truth: right, undetermined or wrong.

Try it:  python -m tests.independent --seed 7 --out /tmp/ind7 && charz analyze /tmp/ind7
"""
