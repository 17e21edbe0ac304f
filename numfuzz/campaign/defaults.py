"""Campaign defaults, in one torch-free place so that the CLI can show them without imports.

Each number says where it comes from.
"""

from __future__ import annotations

import os

from numfuzz.run_spec import DEFAULT_SAMPLES, DEFAULT_SEARCH, GRAD_SAMPLES  # noqa: F401  (their measurements are here)
from numfuzz.workers.defaults import (  # noqa: F401  (the worker side's numbers, shown by the CLI too)
    DEFAULT_CASE_TIMEOUT_S,
    FIRST_CASE_GRACE_S,
    HANG_FACTOR,
    HANG_FLOOR_S,
    MEMORY_SHARE,
    WARMUP_CASES,
    default_memory_limit,
    physical_memory,
)

# Input samples per compiled graph (DEFAULT_SAMPLES). Measured with `scripts/bench --targets --sweep-graphs 20` on
# 2 CPU cores: a new graph on thunder:torchcompile costs 1.6 s (the compile), each sample 0.76 ms
# more (eager, float64 reference, compiled rerun, oracle): 64 samples add 3% to a case, 256 add
# 12%. Of 200 graphs around the five planted bugs, 1/4/16/64/256 samples found 29/38/45/47/46.
# 64 is the knee; 256 would also make every stored case four times larger.
# Samples of a case whose gradients the mix draws (GRAD_SAMPLES), measured with `scripts/sample_sweep --graphs 40
# --counts 4 8 16 64 --kinds gradients` (2 shared cores, torch 2.9.1): of 40 graphs around the planted backward bug
# (examples/planted_backward.py), 4/8/16/64 samples found 2/3/3/2, at 0.75/0.71/0.76/1.06 s a case on a target that
# compiles in a fraction of a second; each sample costs eager's, the float64 reference's and the compiled forward and
# backward (about 6 ms there, more on a batch of model-sized windows). 16 finds what 64 does.
# The shares a campaign draws with, and what each costs, are one table: numfuzz.share_table. The input search's share of
# the samples (DEFAULT_SEARCH) was measured with the seams there.
DEFAULT_MINIMIZE_TIMEOUT_S = 900.0  # the minimiser's compile budget, at a few seconds a compile
# After a --graphs campaign's last case, minimisation goes on for at most this long; what is left
# (the smallest case so far included) waits in the journal for the next run. Measured on 2 cores:
# a hang found by a 12-graph campaign was minimised to its op in 70 s, its tail.
DEFAULT_MINIMIZE_TAIL_S = 300.0
CANCEL_GRACE_S = 20.0  # a minimiser asked to stop hands back its smallest case within this
# A worker is replaced once its RSS grew this much past its warm level: it bounds the slow
# growth of compiler state (~0.4 MiB a case under torch.compile) at a restart every ~600 cases.
RECYCLE_GROWTH = 256 * 2**20
# The least memory a worker gets by default: a warm worker holds 0.9 GiB (torch, thunder and the
# compilers loaded) and the hour-long run's two workers peaked at 1.8 GiB together.
MIN_WORKER_MEMORY = 2 * 2**30


def available_cores() -> int:
    """The cores this process may run on (its affinity, as taskset or a container sets it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_workers(device: str, memory_limit: int | None = None) -> int:
    """One worker per available core, or per GPU for CUDA targets, as memory allows.

    Compiling is nearly all of a campaign's CPU time and a worker compiles on one thread, so each
    core keeps one worker busy. Each worker needs `memory_limit` bytes (default MIN_WORKER_MEMORY)
    out of MEMORY_SHARE of physical memory.
    """
    if device.startswith("cuda"):
        import torch

        units = max(torch.cuda.device_count(), 1)
    else:
        units = available_cores()
    total = physical_memory()
    if total:
        units = min(units, max(int(MEMORY_SHARE * total // (memory_limit or MIN_WORKER_MEMORY)), 1))
    return units
