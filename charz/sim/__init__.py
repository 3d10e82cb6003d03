"""The mock bench: a simulated SSD that draws supply current, and what renders it.

Runtime code (session, drivers, analysis) never imports this package; only the
CLI's ``--mock`` paths and the tests do.
"""
