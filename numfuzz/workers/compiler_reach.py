"""Inside a worker: which lines of the compilers' own Python a case ran, and the shape of the code they generated.

Lines are measured with coverage.py's C tracer, restricted to the compiler packages
(`COMPILER_PACKAGES`: Inductor's lowering, decompositions, codegen, scheduler and FX passes,
`torch._decomp`, `torch._refs`; Thunder's executors and transforms), around every call the case
makes into its target (its compile, its compiled forward and backward, the analysis' probe
compiles: `TimedTarget.calling`), not around the eager and float64 runs, which reach no compiler
line and which the tracer would slow. The tracer roughly doubles a compile's time
(docs/coverage.md), so only a share of cases is traced, drawn from the case's seed (`CaseAddress.traced`). Each reply
carries the lines this worker had not reached before: the campaign unions them.

The generated code's shape is a few words per kernel Inductor wrote (`kernel_shapes`): parallel
or not, vectorised or not, a reduction, Welford, masked tails, how many loops. A new shape is new
compiler behaviour even where the lines were reached before.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from contextlib import contextmanager
from typing import Iterator

COMPILER_PACKAGES = ("torch._inductor", "torch._decomp", "torch._refs", "thunder.executors", "thunder.transforms", "thunder.core.transforms")
Lines = dict[str, list[int]]  # file, relative to its package's parent, -> line numbers


def package_roots() -> dict[str, str]:
    """Each compiler package that is installed: its directory -> the prefix its files are named by."""
    roots = {}
    for name in COMPILER_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except Exception:  # a parent package that fails to import, in whatever way (thunder on a newer torch: AttributeError)
            continue
        if spec is not None and spec.submodule_search_locations:
            path = os.path.realpath(list(spec.submodule_search_locations)[0])
            roots[path] = name.replace(".", "/")
    return roots


class LineTracer:
    """The lines of the compiler packages that this worker's traced cases ran; `new_lines` gives those not given before."""

    def __init__(self) -> None:
        import coverage

        self.roots = package_roots()
        self._coverage = coverage.Coverage(data_file=None, include=[root + "/*" for root in self.roots], branch=False, config_file=False)
        self._given: dict[str, set[int]] = {}
        self._depth = 0

    @contextmanager
    def tracing(self) -> Iterator[None]:
        """Lines run inside are measured; nested, only the outermost starts and stops the tracer."""
        self._depth += 1
        if self._depth == 1:
            self._coverage.start()
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._coverage.stop()

    def new_lines(self) -> Lines:
        """Lines run since the last call that no earlier call gave (the tracer keeps its data: this is a difference)."""
        data = self._coverage.get_data()
        new: Lines = {}
        for path in data.measured_files():
            name = self._name(path)
            given = self._given.setdefault(name, set())
            fresh = set(data.lines(path) or ()) - given
            if fresh:
                given |= fresh
                new[name] = sorted(fresh)
        return new

    def _name(self, path: str) -> str:
        real = os.path.realpath(path)
        for root, prefix in self.roots.items():
            if real.startswith(root + os.sep):
                return prefix + real[len(root) :]
        return real


_KERNEL = re.compile(r"^(?:cpp_fused|triton_\w+?)_\w*", re.M)
_LOOP = re.compile(r"\bfor\s*\(")
_FEATURES = {
    "parallel": re.compile(r"#pragma omp parallel|tl\.program_id\(1\)"),
    "vectorized": re.compile(r"at::vec::Vectorized|VectorizedN|tl\.arange"),
    "reduction": re.compile(r"tmp_acc\d|tl\.sum|tl\.max|tl\.reduce|reduction\("),
    "welford": re.compile(r"[Ww]elford"),
    "masked": re.compile(r"masked|tail|xmask|rmask"),
    "split": re.compile(r"split|RSPLIT|tmp_acc\d+_arr"),
}


def kernel_shapes(source: str) -> list[str]:
    """The shape of each kernel in one generated module: its features and how many loops, in a few words."""
    shapes = []
    starts = [m.start() for m in _KERNEL.finditer(source)] or ([0] if source.strip() else [])
    for begin, end in zip(starts, starts[1:] + [len(source)]):
        body = source[begin:end]
        words = [name for name, pattern in _FEATURES.items() if pattern.search(body)]
        loops = len(_LOOP.findall(body))
        shapes.append(" ".join(words + [f"loops={min(loops, 9)}"]))
    return shapes


@contextmanager
def generated_shapes(found: set[str]) -> Iterator[None]:
    """Inductor's modules loaded inside the block (its output code): their kernels' shapes go into `found`.

    Inductor's code cache is not imported here: imported inside the block's first compile, its module
    lines count as that traced case's, as they do for a case traced whole."""

    def loaded() -> list:
        codecache = sys.modules.get("torch._inductor.codecache")
        return list(codecache.PyCodeCache.modules) if codecache is not None else []

    before = len(loaded())
    try:
        yield
    finally:
        for module in loaded()[before:]:
            path = getattr(module, "__file__", None)
            try:
                with open(path, encoding="utf-8") as f:  # type: ignore[arg-type]
                    found.update(kernel_shapes(f.read()))
            except (OSError, TypeError):
                continue
