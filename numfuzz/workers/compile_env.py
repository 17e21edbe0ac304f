"""The environment a worker compiles in: one compile thread, no on-disk graph caches, a faster linker where the
machine has one, and the vector ISA checks a worker before it passed (`vec_isa`). Set before Inductor reads its
configuration; `serve` and the scripts that time a worker's work call it.

The linker. Inductor builds every fused CPU kernel as a shared library of its own, linked against libtorch, and a
case builds one to twenty. GNU ld (bfd) took 0.1-0.35 s a link here, gold 0.08-0.13 s: 6% of a campaign's time
(docs/benchmarks.md, "The linker"). A linker only resolves symbols: the kernels' machine code is the C++ compiler's
output either way, so nothing numfuzz judges changes. gcc (and clang) look for `ld` on COMPILER_PATH before their
own paths, so a folder holding `ld` as a link to `ld.gold` makes the builds of this process and its children use
gold. A user's own COMPILER_PATH, even an empty one, keeps the user's choice; a gold that fails to link a small
library is not used.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from numfuzz.workers.private_folder import private_folder

FAST_LINKER = "ld.gold"  # resolves symbols as GNU ld does; its --version names it "GNU gold"
CHECK_TIMEOUT_S = 30.0


def set_compile_environment(graph_caches: bool = False) -> str | None:
    """A worker's compile settings, each as a default the user's environment overrides; the fast linker's path in use,
    or None where the machine's own linker is. `graph_caches`: keep Inductor's on-disk graph caches (a model sweep's
    graphs repeat: Thunder's fusion regions of one model under both Thunder targets, a cell run again)."""
    # N workers share the cores; a compile pool per worker would oversubscribe them and hide
    # compile time in processes this worker cannot account for.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    if not graph_caches:
        # Generated graphs do not repeat, so Inductor's on-disk FX graph and AOT autograd caches never
        # hit; they only grow (0.15 MB a graph, three quarters of its cache's growth in a measured
        # hour-long campaign) and a campaign of days would fill the disk. Compiles are no slower.
        os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
        os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "0")
    linker = use_fast_linker()
    from numfuzz.workers.vec_isa import remember_vec_isa_checks

    remember_vec_isa_checks()  # after the settings above: it imports Inductor, which reads them
    return linker


def use_fast_linker() -> str | None:
    """Point this process's C++ builds at gold where it links; its path, or None (nothing changed)."""
    linker = shutil.which(FAST_LINKER)
    if "COMPILER_PATH" in os.environ or linker is None:
        return None
    compiler = os.environ.get("CXX") or "g++"  # Inductor's own choice on Linux
    folder = _linker_folder(linker)
    if folder is None or not _links_with(compiler, folder):
        return None
    os.environ["COMPILER_PATH"] = str(folder)
    return linker


def _linker_folder(linker: str) -> Path | None:
    """A folder of this user's holding `ld` as a link to `linker`, made atomically (workers start side by side); one per
    linker, so that a folder in use never comes to point elsewhere."""
    target = os.path.realpath(linker)
    folder = private_folder(f"numfuzz-linker-{hashlib.sha256(target.encode()).hexdigest()[:12]}")
    if folder is None:
        return None
    try:
        if os.path.realpath(folder / "ld") != target:
            staged = folder / f"ld.{os.getpid()}"
            staged.unlink(missing_ok=True)
            staged.symlink_to(target)
            staged.replace(folder / "ld")
    except OSError:
        return None
    return folder


def _links_with(compiler: str, folder: Path) -> bool:
    """Whether `compiler`, with `folder` on its COMPILER_PATH, links a small shared library, and with gold."""
    env = {**os.environ, "COMPILER_PATH": str(folder)}
    with tempfile.TemporaryDirectory(prefix="numfuzz-link-") as scratch:
        source, library = Path(scratch) / "probe.cpp", Path(scratch) / "probe.so"
        source.write_text('extern "C" int probe(int x) { return x + 1; }\n')
        command = [compiler, "-shared", "-fPIC", str(source), "-o", str(library), "-Wl,-v"]  # -v: links, and says which ld
        try:
            built = subprocess.run(command, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError):
            return False
        return built.returncode == 0 and library.exists() and "GNU gold" in built.stdout
