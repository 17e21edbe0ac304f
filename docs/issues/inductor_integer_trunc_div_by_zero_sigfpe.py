"""torch.compile's integer division with rounding_mode='trunc' by zero kills the process with SIGFPE on CPU, where eager
raises RuntimeError: ZeroDivisionError. PR #186021 (fixing pytorch#143649) routes integer floor and trunc division
through helpers that flag a zero divisor; on torch 2.15.0 floor division by zero raises as eager does, trunc division
still traps: int64, int32, int8 and uint8 operands alike, and a uint8 dividend with an int32 divisor.

Found by a 10-minute torch 2.15.0 `inductor` campaign (numfuzz, seed 904): the div OpInfo's
torch.div(a, b, rounding_mode='trunc') of a uint8 (50,) and an int32 (50,) with zeros among the divisors. Measured on
torch 2.15.0 (CPU, AVX2): trunc traps, floor raises. On torch 2.9.1 and 2.11.0 both trap (pytorch#143649).

Each case runs in a child process, since the bug kills the process. Exits 1 while the bug is present.
"""

import subprocess
import sys

import torch

CHILD = """
import torch
a = torch.tensor([7, 100], dtype=torch.{a}); b = torch.tensor([0, 3], dtype=torch.{b})
try:
    torch.compile(lambda a, b: torch.div(a, b, rounding_mode="{mode}"))(a, b)
    print("returned")
except RuntimeError as exc:
    print("raised", str(exc).splitlines()[0][:60])
"""

print(f"torch {torch.__version__}")
trapped = []
for a, b, mode in [("int64", "int64", "trunc"), ("int32", "int32", "trunc"), ("uint8", "int32", "trunc"), ("int64", "int64", "floor")]:
    child = subprocess.run([sys.executable, "-c", CHILD.format(a=a, b=b, mode=mode)], capture_output=True, text=True, timeout=300)
    said = child.stdout.strip().splitlines()[-1] if child.stdout.strip() else f"killed by signal {-child.returncode}"
    print(f"{a} / {b}, rounding_mode={mode!r}, divisor 0: {said}")
    if child.returncode < 0:
        trapped.append(f"{a}/{b} {mode}")
assert not trapped, f"compiled integer division by zero kills the process: {', '.join(trapped)}"
print("OK: compiled integer division by zero raises as eager does")
