"""thunder.jit computes a wrong value, silently, where a `dict` subclass overrides `__getitem__` and calls
`super().__getitem__(key)`: the override runs twice. `T(a=3)["a"]`, where `T.__getitem__` returns
`super().__getitem__(key) * 10`, is 30 in Python and 300 under thunder.jit.

Thunder's interpreter runs the override, and `super().__getitem__` through its lookaside for the builtin container's
`__getitem__` (thunder/core/interpreter.py), which reads the item by indexing the real object (`self.value[...]`):
natively, so the subclass's override runs again. A `list` subclass doing the same trips that lookaside's own check
(`AssertionError` in `SequenceWrapperMethods.__getitem__`), and so does a dict subclass whose override calls
`dict.__getitem__(self, key)` by name, or whose `get` calls `super().get` (`AssertionError: value for a out of sync 30 3`);
a plain class's `super()` call is right.

transformers' `ACT2FN` is such a subclass (`ClassInstantier(OrderedDict)`: its `__getitem__` returns `cls(**kwargs)`), so
`ACT2FN["silu"](x)` in a forward builds the activation and then calls it with no argument under thunder.jit:
`TypeError: <function SiLUActivation.forward at 0x...>() is missing 1 required positional arguments: input`.
Qwen3-Next's gated RMSNorm does so (numfuzz's model sweep: its forward on thunder:torchcompile, Thunder main).

`super().__delitem__(key)` goes the same way: the lookaside for the builtin's `__delitem__` deletes from the real
object natively, so the subclass's own `__delitem__` runs. transformers' `ModelOutput` forbids `__delitem__` and
calls `super().__delitem__` in `__post_init__` where only its first field is given, as a backbone's
`BackboneOutput(feature_maps=...)` is: UperNet's forward under thunder.jit raises `Exception: You cannot use
``__delitem__`` on a BackboneOutput instance.` (the model sweep, UperNet on thunder:torchcompile).

Exits 1 while the bug is present.
"""

import thunder
import torch


class TimesTen(dict):
    def __getitem__(self, key):
        return super().__getitem__(key) * 10


table = TimesTen(a=3)
x = torch.ones(2)
eager = x * table["a"]
jitted = thunder.jit(lambda t: t * table["a"])(x)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
print(f"x * table['a']: eager {eager.tolist()}, thunder.jit {jitted.tolist()}")

try:
    from transformers.activations import ACT2FN

    thunder.jit(lambda t: ACT2FN["silu"](t))(torch.randn(4))
    activation = "runs"
except ImportError:
    activation = "transformers not installed"
except TypeError as exc:
    activation = f"TypeError: {exc}"
print(f"ACT2FN['silu'](x) under thunder.jit: {activation}")


class NoDelete(dict):
    def __init__(self, **items):
        super().__init__(**items)
        super().__delitem__("drop")

    def __delitem__(self, key):
        raise KeyError(f"{type(self).__name__} forbids __delitem__")


try:
    deleted = thunder.jit(lambda t: NoDelete(keep=t, drop=t)["keep"] * 2)(x).tolist()
except KeyError as exc:
    deleted = f"KeyError: {exc}"
print(f"super().__delitem__ beside a forbidding override: eager {(NoDelete(keep=x, drop=x)['keep'] * 2).tolist()}, thunder.jit {deleted}")
assert torch.equal(jitted, eager), "a dict subclass's __getitem__ override runs twice under thunder.jit"
assert deleted == [2.0, 2.0], "super().__delitem__ runs a dict subclass's own __delitem__ under thunder.jit"
print("OK: the overrides run once, and super() reaches dict's own methods")
