"""A planted bug of the pytorch#194976 kind: a compiled program that keeps the first call's Python scalars.

`stale_scalar` runs the program eagerly, but remembers the scalar arguments (the Python numbers after
the tensors) of its first call and hands those to every later call, as a compiled program that
specialised a scalar and lost its guard would. Only a second call with another scalar shows it:

    numfuzz fuzz --import examples/stale_scalar.py --target stale_scalar --scalar-args-share 1
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
            return fn(*tensors, *first[0])  # the first call's scalars, whatever this call passes

        return compiled

    def final_trace(self, compiled):
        return None

    def repro_source(self):
        return [], 'stale_scalar.StaleScalar().prepare(fn, "cpu")'  # the script imports this module

    def repro_guard(self):
        return ""

    def min_elements(self, dtype, device):
        return 1


def _make(arg):
    if arg:
        raise numfuzz.targets.TargetError("stale_scalar takes no argument")
    return StaleScalar()


numfuzz.targets.register("stale_scalar", _make, "eager, with the first call's Python scalars kept for every later call (a planted bug)")
