"""thunder.jit fails on a call whose positional arguments are unpacked from an iterator: `f(*gen)` of a generator, an
`iter(...)` or a `map(...)`, which Python takes (it makes a tuple of the iterable), raises
`InterpreterError: Encountered exception TypeError: object of type 'generator' has no len()`.

Thunder's interpreter handles CALL_FUNCTION_EX by wrapping the unpacked arguments item by item
(`wrap_args_from_list` in thunder/core/interpreter.py): `len()` of the iterable, then `seq[i]`, which a list or a tuple
has and an iterator does not. CPython hands a lone `*iterable` to CALL_FUNCTION_EX as it is.

torch's parametrizations do this: `ParametrizationList.forward` calls `self[0](*originals)` with `originals` a
generator, so a module under `torch.nn.utils.parametrizations.weight_norm` (HuBERT's, Wav2Vec2's and others' positional
convolution, as transformers builds it) fails under thunder.jit. numfuzz's model sweep met it in HuBERT's forward and
training step on thunder:torchcompile (Thunder main).

Exits 1 while the bug is present.
"""

import thunder
import torch


def add(a, b):
    return a + b


def from_generator(x):
    return add(*(x * k for k in (1, 2)))


def from_map(x):
    return add(*map(lambda t: t * 2, [x, x]))


conv = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 4, 3, padding=1), name="weight", dim=2)
x = torch.ones(2)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn, args in (("add(*generator)", from_generator, (x,)), ("add(*map)", from_map, (x,)), ("weight_norm Conv1d", conv, (torch.randn(1, 4, 8),))):
    try:
        ok = torch.allclose(thunder.jit(fn)(*args), fn(*args))
        print(f"{name}: {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:  # InterpreterError
        ok = False
        print(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on positional arguments unpacked from an iterator: {', '.join(failed)}"
print("OK: thunder.jit takes f(*iterator)")
