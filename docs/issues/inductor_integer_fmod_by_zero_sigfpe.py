"""Inductor (CPU): integer `torch.fmod` and `torch.remainder` by zero kill the process with SIGFPE, where eager raises
`RuntimeError: ZeroDivisionError` (pytorch#143649, which names floordiv, remainder and fmod; #154420 and #183610 for
fmod and `%`). Inductor's C++ kernel computes the raw `%`; PR #179923 routes integral mod through helpers that flag a
zero divisor and raise after the kernel (in 2.13.0, per pytorch#191968, a regression it caused there); floor and trunc
division followed in PR #186021.

Found by numfuzz: a lost worker (SIGFPE, so no op recorded) in a Thunder-main campaign (thunder:torchcompile), whose
program held `torch.fmod` of an int64 (5,) tensor by an int64 0-d tensor that is 0 in some samples; cut down to that op
alone it dies the same way, and the program without it runs. Measured on CPU: SIGFPE compiled on torch 2.9.1 and
2.11.0 (inductor, and Thunder's torchcompile executor on 0.2.6 and main); torch 2.15.0 raises RuntimeError
ZeroDivisionError as eager does.

Runs the compiled calls in a subprocess: raises AssertionError while one kills it; exits 0 once they raise.
"""

import subprocess
import sys

import torch

CHILD = """
import torch
a, b = torch.tensor([7, -7, 5]), torch.tensor(0)
for name, f in (("fmod", torch.fmod), ("remainder", torch.remainder)):
    try:
        f(a, b)
    except RuntimeError as e:
        print(f"eager {name} raises RuntimeError:", e, flush=True)
    try:
        torch.compile(f, backend="inductor")(a, b)
        print(f"compiled {name} returned", flush=True)
    except Exception as e:
        print(f"compiled {name} raises", type(e).__name__, flush=True)
"""

run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
told = [line for line in (run.stdout + run.stderr).splitlines() if "eager" in line or "compiled" in line]
print("\n".join(told))
print(f"torch {torch.__version__}")
assert run.returncode >= 0, f"compiled integer fmod by zero killed the process (signal {-run.returncode}) where eager raises ZeroDivisionError"
print("OK: the compiled fmod and remainder raise, as eager does")
