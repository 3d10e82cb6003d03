"""An R/B trace generator written from paper 000's text (RB-Explorer), not from charz.

It imports nothing from ``charz`` (``tests/unit/test_independent_rb_imports.py`` holds
that) and reads none of charz's windows, constants or simulator: what a die's
Ready/Busy pin does is taken from 000 and a NAND datasheet's habits, stated where used
in :mod:`.model`; the files are written by :mod:`.files` from the formats' own
descriptions (sigrok's srzip v2, IEEE 1364 VCD, plain CSV), and read back by the real
``sigrok-cli``.  The truth (program pulses per die, pages, host bytes) comes with each
trace, so a test can compute WA_true = P_a · N_page_true / L_Volume_Data (000 Eq. 10).
"""
