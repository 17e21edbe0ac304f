"""Campaign defaults, in one torch-free place so that the CLI can show them without imports.

Each number says where it comes from.
"""

from __future__ import annotations

import os

from numfuzz.run_spec import DEFAULT_SAMPLES, DEFAULT_SEARCH  # noqa: F401  (their measurements are here)
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
# The seam-seeking graphs and the input search (numfuzz.program.seams, numfuzz.search), at the
# shares that keep their cost within 10% of graphs/min. Measured on 2 cores, torch 2.14.1, batched
# Inductor: seams 0.25 with search 0.5 cost 23% (a search candidate runs eager and float64 too,
# about 8 ms, against about 1.4 s of compile a graph); these shares cost 5.0% over an hour
# (scripts/bench_search, README "Where compilers break"). DEFAULT_SEARCH is the search's share.
DEFAULT_SEAMS = 0.1
# Shares of cases compiled with symbolic sizes (dynamic=True; dims marked with mark_dynamic) and
# with options drawn from the configuration space (numfuzz/data/compiler_configs.toml). Such a
# case compiles alone (no batch): on 2 loaded cores, torch 2.9.1, these shares (24% of cases)
# cost 14% of Inductor's graphs/min against static default compiles (scripts/bench
# --modes-seconds 90); 0.15/0.1/0.2 and 0.15/0.1/0.15 cost 24% and 55% in two runs like it. Above the seams' 10% on purpose: each such case
# reaches code a static compile never does (docs/dynamic-and-configs.md, "What it costs").
DEFAULT_DYNAMIC_SHARE = 0.1
DEFAULT_MARKED_SHARE = 0.05
DEFAULT_CONFIG_SHARE = 0.1
# torch.compile's default (dynamic=None), Python scalars passed as arguments, one value as both
# operands: the shares are chosen in docs/scalars.md ("What it costs"), from a side-by-side run.
DEFAULT_AUTOMATIC_SHARE = 0.1
DEFAULT_SCALAR_ARGS_SHARE = 0.25
DEFAULT_REPEAT_SHARE = 0.05
# Model-sized values, several intra-op threads, torch.autocast regions and real models' blocks: chosen in
# docs/model-scale.md ("Cost and finding power") from side-by-side runs on torch 2.15.0. A large graph costs
# 3.3 ordinary ones and a block 1.75; threads and autocast cost nothing measurable and reach code nothing else does.
DEFAULT_LARGE_SHARE = 0.05
DEFAULT_THREADS_SHARE = 0.1
DEFAULT_AUTOCAST_SHARE = 0.1
DEFAULT_BLOCKS_SHARE = 0.1
# Windows of real models' graphs (numfuzz.program.zoo) and cases that judge their gradients: chosen in
# docs/benchmarks.md ("Real models' graphs and gradients by default") from side-by-side runs.
DEFAULT_MODELS_SHARE = 0.1
DEFAULT_GRAD_SHARE = 0.1
# Cases whose compiler lines are traced: tracing every case cost 19% of Inductor's graphs/min on torch 2.15.0
# (27.7 against 22.5, side by side); a quarter costs about 5% and still draws the curve (docs/coverage.md).
DEFAULT_TRACE_SHARE = 0.25
# Coverage guidance is off: side by side on two seeds (30 min, torch 2.15.0) it did not both reach more code and find
# no fewer groups, and cost 14-16% of graphs/min (docs/benchmarks.md).
DEFAULT_GUIDED_SHARE = 0.0
# The generator's own chances, at the values they have had since they were added (program.space.GenConfig):
# a strided input, a 0-d broadcast partner, an input of another dtype than its partner.
DEFAULT_LAYOUTS_SHARE = 0.1
DEFAULT_ZERO_DIM_SHARE = 0.05
DEFAULT_MIX_DTYPES_SHARE = 0.15
# An op's argument left outside its domain: what a NaN does downstream (where, maximum, comparisons, nan_to_num).
# Per guarded argument, so a graph with a domain-restricted op sees it a few times in a hundred; cost in docs/benchmarks.md.
DEFAULT_OUT_OF_DOMAIN_SHARE = 0.05
# A graph whose first input has a size-0 dim: cheap (nothing to compute) and a corner compilers special-case.
DEFAULT_FP64_SHARE = 0.05  # float64 programs: see docs/ops.md "Float64 programs" for what they cost and found
DEFAULT_EMPTY_SHARE = 0.02
# A graph whose first input has one dim of 9 to 67, the others 1 or 2: odd tails past max_dim at a small cost.
DEFAULT_ODD_TAIL_SHARE = 0.05
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
