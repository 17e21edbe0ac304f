"""Inductor (CPU): an out-of-range index aborts the process where eager raises IndexError (pytorch#195402, open).

Inductor checks an indirect index with a TORCH_CHECK inside the generated loop. Once the loop is parallelised
(4096 elements here, with two threads), the C++ exception leaves an OpenMP region, which calls std::terminate:
"terminate called after throwing an instance of 'std::runtime_error' ... index out of bounds: 0 <= tmp2 < 1L", SIGABRT,
no traceback. Small inputs raise a catchable RuntimeError. numfuzz found it as `F.embedding` of conv_transpose3d's
int64 output (values 4 to 13) into a (1, 2) table, with two threads, a 30-minute torch 2.15.0 campaign. Measured on
CPU with torch 2.9.1 (aborts with one thread too) and 2.15.0 (aborts with two). PR #195482 (open) rethrows after the
region.

Runs the compiled call in a subprocess: raises AssertionError while it aborts; exits 0 once it raises.
"""

import subprocess
import sys

import torch

CHILD = """
import torch
import torch.nn.functional as F
torch.set_num_threads(2)
idx, weight = torch.full((4096,), 4), torch.ones(1, 2)
def f(idx, weight):
    return F.embedding(idx, weight)
try:
    f(idx, weight)
except IndexError as e:
    print("eager raises IndexError:", e)
try:
    torch.compile(f, backend="inductor")(idx, weight)
    print("compiled returned")
except Exception as e:
    print("compiled raises", type(e).__name__)
"""

run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
told = [line for line in (run.stdout + run.stderr).splitlines() if "eager" in line or "compiled" in line or "what()" in line]
print("\n".join(told))
print(f"torch {torch.__version__}")
assert run.returncode >= 0, f"the compiled embedding of an out-of-range index killed the process (signal {-run.returncode}) where eager raises IndexError"
print("OK: the compiled program raises, as eager does")
