"""thunder.jit cannot construct a `collections.abc.Sequence` subclass whose `__getitem__` reads state its `__init__`
sets, and it runs a user Sequence's `__getitem__` natively, element by element, whenever the Sequence is passed to a
call it does not interpret.

    class Pair(collections.abc.Sequence):
        def __init__(self, a, b):
            self.items = (a, b)
        def __getitem__(self, i):
            return self.items[i]
        def __len__(self):
            return 2

`Pair(x, x + 1)[0]` in a jitted function fails: `InterpreterError: Encountered exception AttributeError: 'Pair' object
has no attribute 'items'`. A plain class, an `abc.ABC` or a `collections.abc.Sized` subclass with the same body runs.

Thunder's general jit lookaside (`thunder/core/jit_ext.py`) asks of every call whether an argument holds a tensor,
and for an argument that is a `Sequence` it iterates the real object (`any(isinstance(i, TensorProxy) for i in
a.value)`). `Pair.__init__(self, ...)` is such a call with `self` not yet initialised, so the iteration's
`__getitem__` fails; and `len(seq)` of a Sequence made outside runs its `__getitem__` for each element, outside the
interpreter, so a `__getitem__` with an effect (here a counter) has it where Python has none: eager 0, thunder.jit 6.

transformers' per-layer configuration view (`_PerLayerConfigView`, a Sequence of a heterogeneous model's layer configs)
is such a class. numfuzz's model sweep met the failure in T5Gemma's forward on thunder:torchcompile.

Exits 1 while the bug is present.
"""

import collections.abc

import thunder
import torch


class Pair(collections.abc.Sequence):
    def __init__(self, a, b):
        self.items = (a, b)

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return 2


class Counted(collections.abc.Sequence):
    calls = 0

    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        Counted.calls += 1
        return i

    def __len__(self):
        return 3


def first_of_pair(x):
    return Pair(x, x + 1)[0] * 2


counted = Counted()


def length_then_calls(x):
    return x * len(counted) + Counted.calls


x = torch.ones(2)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
try:
    constructed = f"runs: {thunder.jit(first_of_pair)(x).tolist()} (eager {first_of_pair(x).tolist()})"
except Exception as exc:  # InterpreterError
    constructed = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
print(f"Pair(x, x + 1)[0] under thunder.jit: {constructed}")

eager = length_then_calls(torch.zeros(1)).item()
Counted.calls = 0
jitted = thunder.jit(length_then_calls)(torch.zeros(1)).item()
print(f"x * len(seq) + __getitem__ calls so far: eager {eager}, thunder.jit {jitted}")
assert constructed.startswith("runs") and jitted == eager, "thunder.jit iterates a user Sequence natively"
print("OK: the Sequence is constructed and not iterated")
