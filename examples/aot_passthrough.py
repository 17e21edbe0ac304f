"""AOTAutograd with no change: torch.compile's `aot_eager` backend, a control for gradients.

Its forward and backward run as AOTAutograd traced and partitioned them, with ATen's own kernels
and no code generation, so any gradient finding on it is AOTAutograd's (its decompositions and
partitioning) or the rules' (`numfuzz fuzz --grad --import examples/aot_passthrough.py --target aot_passthrough`).
"""

import torch

import numfuzz.targets


class AotPassthrough:
    name = "aot_passthrough"

    def available(self):
        return True, ""

    def reset(self):
        torch._dynamo.reset()

    def prepare(self, fn, device):
        return torch.compile(fn, backend="aot_eager", dynamic=False)

    def final_trace(self, compiled):
        return None

    def repro_source(self):
        return [], 'torch.compile(fn, backend="aot_eager", dynamic=False)'

    def repro_guard(self):
        return ""

    def min_elements(self, dtype, device):
        return 1


def _make(arg):
    if arg:
        raise numfuzz.targets.TargetError("aot_passthrough takes no argument")
    return AotPassthrough()


numfuzz.targets.register("aot_passthrough", _make, "torch.compile with the aot_eager backend: AOTAutograd, no code generation (a control)")
