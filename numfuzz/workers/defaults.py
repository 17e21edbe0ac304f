"""The worker side's defaults: time limits, hang detection, memory. Torch-free, so that the CLI shows them without imports.

Each number says where it comes from. The campaign's own defaults (`numfuzz.campaign.defaults`)
re-export these.
"""

from __future__ import annotations

import os

DEFAULT_CASE_TIMEOUT_S = 120.0  # compiles on CPU take seconds; tens of seconds on a loaded machine
FIRST_CASE_GRACE_S = 30.0  # a fresh worker's first compile also loads the compiler's code generator (~7 s)
# An isolated candidate counts as hung past HANG_FACTOR times the median time of the target's
# finished runs, and never before HANG_FLOOR_S: 4x leaves room for a graph slower than the median
# (a slow one is then misjudged as hung and the final confirmation at the full --case-timeout
# rejects the result); the floor covers tiny medians on a loaded machine.
HANG_FACTOR = 4.0
HANG_FLOOR_S = 5.0
# The warm level is the highest RSS over a worker's first cases: each target loads its compiler
# on its first case (Inductor adds ~100 MiB to a worker whose first case ran on Thunder's torch
# executor), so the first case alone would count that loading as growth.
WARMUP_CASES = 10
MEMORY_SHARE = 0.8  # of physical memory, split evenly between the workers


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def default_memory_limit(workers: int) -> int | None:
    """Bytes one worker may use: an even share of 80% of physical memory (None where unknown)."""
    total = physical_memory()
    return int(MEMORY_SHARE * total / max(workers, 1)) if total else None
