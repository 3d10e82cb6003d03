"""``charz scope list``: the VISA resources pyvisa-py can see, and what it cannot look for."""

from __future__ import annotations

import json
import re
import textwrap
import warnings

import typer

from charz.cli._common import console, emit_json

# pip package for the module pyvisa-py says is missing ("No module named 'usb'")
_PIP = {"usb": "pyusb", "serial": "pyserial", "gpib": "gpib-ctypes", "pyvicp": "pyvicp",
        "psutil": "psutil", "zeroconf": "zeroconf"}


def missing(info: dict) -> dict[str, list[str]]:
    """The installs that would enable what pyvisa-py cannot search, each with the resource kinds it enables."""
    by_fix: dict[str, list[str]] = {}
    for kind, state in info.items():
        if kind == "Version":
            continue
        text = " ".join(state) if isinstance(state, list) else str(state)
        if isinstance(state, list) or "Please install" in text:
            mod = re.search(r"No module named '([\w.]+)'", text)
            name = mod.group(1).split(".")[0] if mod else None
            if name is None:
                wanted = re.search(r"Please install (\w[\w-]*)", text)
                name = wanted.group(1).lower() if wanted else None
            if "could not locate the gpib library" in text:
                # gpib-ctypes (pulled in by e.g. tm_devices) is there; the C library it loads is not
                fix = "the system's GPIB library (linux-gpib) is missing"
            else:
                fix = f"pip install {_PIP.get(name, name)}" if name else " ".join(text.split())
            by_fix.setdefault(fix, []).append(kind)
        for found in re.findall(r"(\w+ not installed)", text):     # discovery limits of an available kind
            module = found.split()[0]
            by_fix.setdefault(f"pip install {_PIP.get(module, module)}", []).append(f"{kind} discovery")
    return by_fix


def _missing(info: dict) -> list[str]:
    """One line per resource kind pyvisa-py cannot use, with the install that enables it."""
    # A backend's own message can run to a paragraph: fold it to the 80 columns people read in.
    return [textwrap.fill(f"{', '.join(kinds)}: {fix}", 78, subsequent_indent="    ")
            for fix, kinds in missing(info).items()]


def format_list(resources: tuple[str, ...], info: dict) -> str:
    lines = [f"VISA resources seen by pyvisa-py {info.get('Version', '?')}:"]
    lines += [f"  {r}" for r in resources] or ["  none found"]
    missing = _missing(info)
    if missing:
        lines += ["", "not searched, or only partly (something they need is missing):"] + [textwrap.indent(m, "  ") for m in missing]
    lines += ["", "Raw-socket scopes (TCPIP::host::port::SOCKET) are never discovered:",
              "give their address to charz scope check."]
    return "\n".join(lines)


def register(scope_app: typer.Typer) -> None:
    @scope_app.command("list")
    def list_(
        as_json: bool = typer.Option(False, "--json", help="Print the resources and what is missing as JSON "
                                                           "(charz.scope-list/1)."),
    ) -> None:
        """List the VISA resources pyvisa-py finds, and which backends it lacks."""
        import pyvisa  # lazy: pyvisa

        with warnings.catch_warnings():       # pyvisa-py's discovery warnings are in the list below
            warnings.simplefilter("ignore")
            rm = pyvisa.ResourceManager("@py")
            try:
                resources = tuple(rm.list_resources("?*"))
                info = dict(rm.visalib.get_debug_info())
            finally:
                rm.close()
        if as_json:
            emit_json(json.dumps({"schema": "charz.scope-list/1", "pyvisa_py": info.get("Version"),
                                   "resources": list(resources),
                                   "missing": [{"fix": fix, "kinds": kinds} for fix, kinds in missing(info).items()]},
                                  indent=2))
            return
        console.print(format_list(resources, info), markup=False)
