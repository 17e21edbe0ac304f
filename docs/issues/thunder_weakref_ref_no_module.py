"""thunder.jit fails on any call of `weakref.ref`, and so on every `torch.nn.LSTM`, `GRU` and `RNN` module: `KeyError: None`.

`weakref.ref` is a type Thunder's interpreter does not look inside; its general jit lookaside registers such a callable
as an opaque operator under its name (`register_operator_for_opaque_function`), and `get_name` reads
`sys.modules[fn.__module__]`. The `__new__` Thunder reaches for `weakref.ref(...)` has `__module__` None, so the lookup
raises `KeyError: None` (`InterpreterError: Encountered exception KeyError: None while tracing ...`). torch's RNN modules
call `weakref.ref(w)` for each flat weight (`_init_flat_weights`, from `forward` through `_update_flat_weights`), so an
LSTM alone fails; Parakeet-TDT's decoder is one.

Found by numfuzz's model sweep (Parakeet-TDT's forward on thunder:torchcompile). Measured on Thunder 0.2.6 (torch 2.9.1)
and main (0.2.7.dev0, 1e22aac; torch 2.11.0). Searched Thunder's issues and PRs for LSTM, RNN, weakref, opaque functions
and the message: none found; Thunder's auto-registered ops list `lstm` as an op, not the module's forward.

Exits 1 while the bug is present.
"""

import weakref

import thunder
import torch


def f(x):
    weakref.ref(x)  # what each RNN module does to its flat weights
    return x * 2


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x = torch.randn(2, 3, 4)
failed = []
for name, fn in (("weakref.ref", f), ("nn.LSTM", torch.nn.LSTM(4, 4, batch_first=True))):
    try:
        thunder.jit(fn)(x)
        print(f"{name}: runs")
    except Exception as exc:  # the interpreter wraps what it meets
        print(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        failed.append(name)
if failed:
    raise SystemExit(f"thunder.jit fails on {', '.join(failed)}")
print("OK: weakref.ref and nn.LSTM trace")
