"""A planted functionalization bug: a compiled program that drops a write through a view.

AOTAutograd with no code generation, where the functionalized form of a write into a slice
(`x.narrow(...).copy_(y)` becomes `slice_scatter`) returns its input unchanged, as a reinplacing
pass that lost the write would. Only a program that writes through a view shows it.
"""

from __future__ import annotations

import torch
from torch._dynamo.backends.common import aot_autograd

from numfuzz.targets import register
from numfuzz.targets.eager import Eager

aten = torch.ops.aten


def _write_dropped(base, src, dim=0, start=None, end=None, step=1):
    return base.clone()


def _as_traced(graph_module, example_inputs):
    return graph_module


BACKEND = aot_autograd(fw_compiler=_as_traced, bw_compiler=_as_traced, decompositions={aten.slice_scatter.default: _write_dropped})


class ViewWriteDropped(Eager):
    name = "view_write_dropped"

    def reset(self) -> None:
        torch._dynamo.reset()

    def prepare(self, fn, device):
        return torch.compile(fn, backend=BACKEND, dynamic=False)

    def repro_source(self) -> tuple[list[str], str]:
        return [], "torch.compile(fn, backend=view_write_target.BACKEND, dynamic=False)"  # the script imports this module


register("view_write_dropped", lambda arg: ViewWriteDropped(), "torch.compile dropping writes through views (tests only)")
