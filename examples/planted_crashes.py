"""Deliberately broken Thunder executors that crash, hang or blow up, for testing numfuzz campaigns.

Import this file (`numfuzz fuzz --import examples/planted_crashes.py --target thunder:crash_segv
--ops tanh`) and select an executor by name. Each claims `torch.tanh` (crash_hang_exp claims
`torch.exp`, crash_segv_rare `torch.where`) and misbehaves when a compiled program runs it;
`--ops tanh` makes every generated graph call it. Needs only torch and thunder. The memory hog
must only be run with a worker memory limit (`--memory-limit`).
"""

import ctypes
import os
import time

import thunder.torch as ltorch
import torch
from thunder.extend import OperatorExecutor, register_executor


def _executor(name: str, symbol, impl) -> OperatorExecutor:
    ex = OperatorExecutor(name, version="0.1")
    register_executor(ex)
    op = ex.register_operator(f"{name}_impl", like=symbol, fn=impl)
    ex.register_implementation(symbol, op)
    return ex


# Reads address 0: the process dies of SIGSEGV, as a miscompiled kernel would.
def _segfault(a):
    ctypes.string_at(0)
    return torch.tanh(a)


# Fails an assertion in native code: SIGABRT.
def _abort(a):
    os.abort()


# Never returns, like a kernel stuck in a loop; sleeping in short steps keeps it killable.
def _hang(a):
    while True:
        time.sleep(0.1)


# Raises, like a missing kernel or an unsupported dtype.
def _raise(a):
    raise RuntimeError("planted failure in crash_raise")


# NaN everywhere, where eager's tanh is finite.
def _nan(a):
    return torch.full_like(a, float("nan"))


# Keeps allocating and touching memory until the allocator gives up.
def _exhaust_memory(a):
    hoard = []
    while True:
        hoard.append(torch.ones(64 * 2**20, dtype=torch.float32, device=a.device))  # 256 MiB each


crash_segv = _executor("crash_segv", ltorch.tanh, _segfault)
crash_abort = _executor("crash_abort", ltorch.tanh, _abort)
crash_hang = _executor("crash_hang", ltorch.tanh, _hang)
crash_raise = _executor("crash_raise", ltorch.tanh, _raise)
crash_nan = _executor("crash_nan", ltorch.tanh, _nan)
crash_oom = _executor("crash_oom", ltorch.tanh, _exhaust_memory)

# Hangs on `exp` only, in graphs of every op: a campaign without `--ops` finds it in a few graphs
# of ten, and the rest of each graph runs on Thunder's torch executor. For minimising hangs.
crash_hang_exp = _executor("crash_hang_exp", ltorch.exp, _hang)


# A rare crash for long campaigns, where workers must also live long enough to show their memory
# trend: the segfault hits only a `torch.where` that mixes bf16 and fp16 (about 1 graph in 300).
def _segfault_on_mixed_where(condition, a, b):
    if {a.dtype, b.dtype} == {torch.bfloat16, torch.float16}:
        ctypes.string_at(0)
    return torch.where(condition, a, b)


crash_segv_rare = _executor("crash_segv_rare", ltorch.where, _segfault_on_mixed_where)
