"""A deliberately broken torch.compile backend whose forward is exact and whose backward is not, for testing gradients.

`backward_bug` is AOTAutograd with no code generation (forward and backward run as traced), and
one backward decomposition replaced with a realistic mistake: tanh's gradient computes
1 - tanh(x)**2 from tanh(x) rounded to bf16, as a kernel that saved its activation in a narrower
dtype would. Import this file (`numfuzz fuzz --grad --import examples/planted_backward.py
--target backward_bug`); it needs only torch.
"""

import torch
from torch._dynamo.backends.common import aot_autograd

import numfuzz.targets

aten = torch.ops.aten


def _tanh_backward_from_bf16(grad, output):
    saved = output.to(torch.bfloat16).to(output.dtype)
    return grad * (1 - saved * saved)


def _as_traced(graph_module, example_inputs):
    return graph_module


BACKEND = aot_autograd(fw_compiler=_as_traced, bw_compiler=_as_traced, decompositions={aten.tanh_backward.default: _tanh_backward_from_bf16})


class BackwardBug:
    name = "backward_bug"

    def available(self):
        return True, ""

    def reset(self):
        torch._dynamo.reset()

    def prepare(self, fn, device):
        return torch.compile(fn, backend=BACKEND, dynamic=False)

    def final_trace(self, compiled):
        return None

    def repro_source(self):
        return [], "torch.compile(fn, backend=planted_backward.BACKEND, dynamic=False)"  # the script imports this module

    def repro_guard(self):
        return ""

    def min_elements(self, dtype, device):
        return 1


def _make(arg):
    if arg:
        raise numfuzz.targets.TargetError("backward_bug takes no argument")
    return BackwardBug()


numfuzz.targets.register("backward_bug", _make, "torch.compile with AOTAutograd, tanh's backward computed from a bf16 tanh (planted)")
