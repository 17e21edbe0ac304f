"""A planted bug of the pytorch#194976 kind: a compiled program that keeps the first call's Python scalars.

`stale_scalar` runs the program eagerly, but remembers the scalar arguments (the Python numbers after
the tensors) of its first call and hands those to every later call, as a compiled program that
specialised a scalar and lost its guard would. Only a second call with another scalar shows it:

    numfuzz fuzz --import examples/stale_scalar.py --target stale_scalar --scalar-args-share 1

`stale_backward_scalar` is the backward-only kind, as pytorch#194976's stale clamp bound shows: its
outputs are eager's with this call's scalars, and their gradients are those of the first call's
scalars (a compiled backward that kept a specialised scalar). Only gradients judged at a second call see it:

    numfuzz fuzz --import examples/stale_scalar.py --target stale_backward_scalar --scalar-args-share 1 --grad
"""

import torch

import numfuzz.targets


def _is_tensor(value):
    return isinstance(value, torch.Tensor)


class StaleScalar:
    name = "stale_scalar"

    def available(self):
        return True, ""

    def reset(self):
        pass

    def prepare(self, fn, device):
        first = []

        def compiled(*args):
            tensors = [a for a in args if _is_tensor(a)]
            scalars = [a for a in args if not _is_tensor(a)]
            if not first:
                first.append(scalars)
            return self.call(fn, tensors, scalars, first[0])

        return compiled

    def call(self, fn, tensors, scalars, first_scalars):
        return fn(*tensors, *first_scalars)  # the first call's scalars, whatever this call passes

    def final_trace(self, compiled):
        return None

    def repro_source(self):
        return [], 'stale_scalar.StaleScalar().prepare(fn, "cpu")'  # the script imports this module

    def repro_guard(self):
        return ""

    def min_elements(self, dtype, device):
        return 1


class StaleBackwardScalar(StaleScalar):
    name = "stale_backward_scalar"

    def call(self, fn, tensors, scalars, first_scalars):
        out = fn(*tensors, *scalars)
        now, then = _as_tuple(out), _as_tuple(fn(*tensors, *first_scalars))
        # this call's values, the first call's gradients (t + (s - s.detach()) would be NaN where s is inf)
        joined = tuple(_ValueWithGradientOf.apply(t.detach(), s) if s.requires_grad else t for t, s in zip(now, then))
        return joined if isinstance(out, (tuple, list)) else joined[0]

    def repro_source(self):
        return [], 'stale_scalar.StaleBackwardScalar().prepare(fn, "cpu")'


class _ValueWithGradientOf(torch.autograd.Function):
    """`value` exactly, its gradient handed to `carrier`."""

    @staticmethod
    def forward(ctx, value, carrier):
        return value.clone()

    @staticmethod
    def backward(ctx, grad):
        return None, grad


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _maker(cls):
    def make(arg):
        if arg:
            raise numfuzz.targets.TargetError(f"{cls.name} takes no argument")
        return cls()

    return make


numfuzz.targets.register("stale_scalar", _maker(StaleScalar), "eager, with the first call's Python scalars kept for every later call (a planted bug)")
numfuzz.targets.register(
    "stale_backward_scalar",
    _maker(StaleBackwardScalar),
    "eager values, with the first call's Python scalars kept in every later call's gradients (a planted bug)",
)
