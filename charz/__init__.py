"""charz — read an SSD's hidden internals from its power signature.

Layers, from the top (each imports only the ones below it):

    cli → session → device / workload / scope / sim → archive / profile → analysis

``charz.sim`` is the mock bench (simulated SSD, simulated oscilloscope); runtime
code never imports it, only the CLI's mock mode and the tests do.
"""

__version__ = "0.1.0"
