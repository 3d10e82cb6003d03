"""A second independent generator family: SSDs built from NAND datasheet currents.

Written apart from ``tests/independent`` (and from charz) on purpose: a different
hand's reading of how an SSD draws current, so that an analysis tuned to one
generator's habits meets a drive it was not tuned to.  It imports numpy and the
standard library only; it writes session archives from docs/archive.md's text, and
keeps each drive's truth OUTSIDE the archive (a sidecar ``DIR.truth.json``).

Currents and timing come from the DC and AC tables of public NAND datasheets:

* Numonyx NAND01G-B2B / NAND02G-B2C, Table 23 (3 V): operating current sequential
  read IDD1, program IDD2, erase IDD3 each 10 mA typ / 20 mA max; 1.8 V parts
  8 / 15 mA (pdf.ic37.com/NUMONYX/NAND01G-B2B_datasheet, p. 43).
* Micron MT29F16G08ABACA (SLC, ONFI 2.2): read page 35 µs max, program page 350 µs
  typ, erase block 1.5 ms typ, synchronous I/O 200 MT/s; program cache, read cache
  and multi-LUN (interleaved die) operations.
* Micron MT29F16G08MAA… (MLC, ONFI 1.0): random read 50 µs, program page 900 µs typ,
  block erase 3.5 ms typ; PROGRAM PAGE CACHE MODE, interleaved die operations.
* Samsung K9F2G08U0C (SLC): tR 40 µs max; Intel JS29F02G08AANB3: read 25 µs,
  program 300 µs typ, erase 2 ms typ.
* Assumed, not read from a datasheet found here: later ONFI-era MLC/TLC parts
  drawing up to about 25 mA typ / 50 mA max for ICC1–ICC3, with I/O-burst current
  (ICC4R/ICC4W) rising with the interface rate.  The ranges below reach that far
  so the generator covers such parts; no claim rests on the figure itself.

So: array read 8–40 mA per die for 25–90 µs; program 12–50 mA per package (a
package's dies interleave their program operations and share one charge pump, so
their currents do not add); erase of the same order for 1.5–5 ms; I/O toggling on a
channel 15–80 % of a program's current.  Program time 200–2500 µs with lower /
upper (/ extra) page times apart by page type, as MLC and TLC datasheets list them.

The controller differs from the first family's: it dispatches one page at a time
(package-major or die-major over a unit), cache-programs (the next page moves into a
package's cache register while the previous page programs), cache-reads (the next
array read overlaps the previous unit's data out), and draws host DMA current while
the request's data crosses the host link.  Drawn wider: 1–16 channels, 1–8 ways, 1–8
dies, 4/8/16 KiB pages, 1–4 µs sampling, 8/10/12-bit scopes.

Try it:  python -m tests.independent_datasheet --seed 7 --out /tmp/ds7 && charz analyze /tmp/ds7
"""
