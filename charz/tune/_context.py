"""The inputs every target module reads, gathered once, and the pieces they share."""

from __future__ import annotations

from dataclasses import dataclass

from charz.tune._basis import FALLBACK, NONE, Basis
from charz.tune._limits import KernelLimits
from charz.tune._model import Advice, KernelDefault, Source
from charz.tune._tool_limits import Host

DEFAULT_BLOCK_BYTES = 4096


@dataclass(frozen=True)
class Context:
    """What a target module needs: the basis, the kernel's limits, the user's options."""

    basis: Basis
    limits: KernelLimits | None
    block_size_bytes: int = DEFAULT_BLOCK_BYTES
    data_disks: int | None = None
    device: str = "DEV"
    #: The machine the commands are for (page size, kernel): what it can mount (``_tool_limits``).
    host: Host | None = None

    @property
    def block_source(self) -> Source:
        how = "--block-size" if self.block_size_bytes != DEFAULT_BLOCK_BYTES else "--block-size default"
        return Source("block size", self.block_size_bytes, "B", "option", origin=how)

    def basis_warnings(self) -> tuple[str, ...]:
        """The basis's caveats; for a fallback the missing-unit explanation comes first."""
        head = (self.basis.missing,) if self.basis.kind in (FALLBACK, NONE) and self.basis.missing else ()
        return head + self.basis.warnings


def no_limits(what_it_would_do: str) -> KernelDefault:
    """The kernel default when no queue limits were given."""
    return KernelDefault(f"unknown without queue limits (give --device DEV, or --min-io/--opt-io): {what_it_would_do}",
                         known=False)


def nothing_to_advise(target: str, ctx: Context, kernel_default: KernelDefault) -> Advice:
    """basis ``none``: no command, only what is missing and what to do."""
    return Advice(target, NONE, f"no {target} command: " + ctx.basis.summary, (), kernel_default, (),
                  ("the tool's own defaults are safe; charz has nothing measured to add to them",),
                  ctx.basis_warnings())
