"""thunder.jit on main: Python's builtin `max(iterable)` and `max(a, b, c)` (and `min`) of plain numbers raise
`TypeError: max() currently supports exactly two positional arguments in thunder.jit`; Thunder 0.2.6 computes them.

A regression since the release: lightning-thunder#2778 ("Support min/max for symbolic values", ecc3a79) added a
lookaside for the builtins that takes exactly two positional arguments, and raises for every other call, even
of constants. LED (transformers' `LEDEncoder._pad_to_window_size`: `max(self.config.attention_window)`) fails
so on `thunder:torchcompile` in numfuzz's model sweep on main, and ran on 0.2.6.

Measured: Thunder 0.2.6 (torch 2.9.1) computes both; Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0) raises on both.
Exits 1 while the bug is present.
"""

import thunder
import torch


def of_a_list(x, widths=(4, 8)):
    return x * max(list(widths))


def of_three(x):
    return x * min(4, 8, 2)


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x = torch.ones(2)
failed = []
for fn in (of_a_list, of_three):
    try:
        got = thunder.jit(fn)(x)
        torch.testing.assert_close(got, fn(x))
        print(f"{fn.__name__}: {got.tolist()} as eager")
    except Exception as exc:  # Thunder wraps the TypeError in an InterpreterError
        print(f"{fn.__name__}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        failed.append(fn.__name__)
assert not failed, f"thunder.jit fails on builtin max/min of other than two arguments: {', '.join(failed)}"
print("OK: thunder.jit computes builtin max and min of a list and of three numbers")
