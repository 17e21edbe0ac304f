"""Inductor's checks of the CPU vector ISAs, answered once per machine instead of once per process.

Before its first CPU kernel, a process's Inductor checks each vector ISA that /proc/cpuinfo names
(`cpu_vec_isa.VecISA.check_build`): it builds a small library with the ISA's flags and loads it in a
fresh Python that imports torch. Measured here (AVX-512, 2 cores): 5 s of CPU a process on torch 2.9 and 10 s
on torch 2.11, which checks AVX-512's VNNI and bf16 forms too (docs/benchmarks.md), paid by every worker that starts: a campaign's at its start and
after each crash and recycle (four starts in a measured 10-minute campaign), a sweep's after each timeout.

A check's answer depends only on the machine, the compiler and torch, so a passed check is kept in a file keyed
by those and by the check's own code and flags, and a later process takes it: the same ISAs pass, Inductor picks
the same one, and its kernels are the same. A failed check is never kept (it may have failed for a passing reason,
a full disk or a slow load), so it is made again.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

_PASSED = "passed"


def _cpu_flags() -> str | None:
    """The first `flags` line of /proc/cpuinfo; None where there is none (not Linux on x86)."""
    try:
        with open("/proc/cpuinfo") as info:
            return next((line for line in info if line.startswith("flags")), None)
    except OSError:
        return None


def _compiler() -> str:
    """The C++ compiler Inductor runs (CXX, else g++), by its resolved path and its file's time: an upgrade changes it."""
    name = os.environ.get("CXX") or "g++"
    path = shutil.which(name)
    if path is None:
        return name
    real = os.path.realpath(path)
    return f"{real}@{os.stat(real).st_mtime_ns}"


def machine_key(torch_version: str) -> str | None:
    """What a check's answer depends on beside the check itself; None where the CPU's flags cannot be read."""
    flags = _cpu_flags()
    if flags is None:
        return None
    parts = (torch_version, sys.executable, _compiler(), os.environ.get("COMPILER_PATH", ""), platform.machine(), flags)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _check_file(folder: Path, key: str, arch_flags: str, code: str) -> Path:
    return folder / hashlib.sha256(f"{key}\n{arch_flags}\n{code}".encode()).hexdigest()[:32]


def remember_vec_isa_checks(folder: Path | None = None) -> bool:
    """Make this process's Inductor take the checks a process before it passed, and keep the ones it passes itself;
    whether it does (not where the CPU's flags cannot be read, or Inductor has no such check)."""
    import torch

    try:
        from torch._inductor import cpu_vec_isa
    except ImportError:
        return False
    from numfuzz.workers.private_folder import private_folder

    key, place = machine_key(torch.__version__), folder or private_folder("numfuzz-vec-isa")
    check = getattr(cpu_vec_isa.VecISA, "check_build", None)
    if key is None or place is None or check is None:
        return False
    if getattr(check, "remembered", False):  # this process's already
        return True

    def check_build(isa: Any, code: str) -> bool:
        kept = _check_file(place, key, isa.build_arch_flags(), code)
        if kept.is_file():
            return True
        passed = check(isa, code)
        if passed:
            _keep(kept)
        return passed

    check_build.remembered = True  # type: ignore[attr-defined]
    cpu_vec_isa.VecISA.check_build = check_build
    return True


def _keep(path: Path) -> None:
    """The passed check's file, written whole (workers start side by side); a folder that cannot be written keeps nothing."""
    from numfuzz.corpus.store import write_atomic

    try:
        write_atomic(path, _PASSED)
    except OSError:
        pass
