"""Deliberately broken torch.compile backends whose bugs need a compile mode: symbolic sizes, or one option.

Import this file (`numfuzz fuzz --import examples/planted_compile_modes.py --target symbolic_bug`)
and choose a target; it needs only torch.

* `symbolic_bug` runs the traced graph as it is, except where a placeholder's size is symbolic (a
  SymInt: dynamic=True, or a dim marked dynamic): then it computes `expm1(x)` as `exp(x) - 1`, as a
  code path written for symbolic sizes that took the easy formula would. With static sizes it is
  exact. It compiles every size mode numfuzz draws.
* `resize_bug` runs the traced graph as it is at the sizes it was compiled at, and through a path
  for other sizes that computes `expm1(x)` as `exp(x) - 1`, as a kernel tuned for its first size
  with a careless generic fallback would: wrong only when a symbolic compile is run at a second size.
* `option_bug` runs the traced graph as it is, except under the option `aggressive_fusion`: then it
  computes `expm1(x)` as `exp(x) - 1`. Its configuration space (`planted_options` below) draws that
  option with others, which it ignores, so a finding's minimised case keeps `aggressive_fusion` alone.
"""

import copy

import torch

import numfuzz.targets
from numfuzz.run_spec import DYNAMIC_MODES
from numfuzz.targets.compile_modes import MARK_DIMS_SOURCE, check_modes, dynamo_compiles, marking
from numfuzz.targets.config_space import add_section

BUG_OPTION = "aggressive_fusion"


def _expm1_by_exp(x):
    return torch.exp(x) - 1


def _symbolic(graph_module) -> bool:
    """Whether any placeholder's example value has a symbolic size."""
    for node in graph_module.graph.nodes:
        value = node.meta.get("example_value") if node.op == "placeholder" else None
        if isinstance(value, torch.SymInt) or any(isinstance(d, torch.SymInt) for d in getattr(value, "shape", ())):
            return True
    return False


def _with_expm1_by_exp(graph_module):
    for node in graph_module.graph.nodes:
        if node.op == "call_function" and node.target in (torch.expm1, torch.special.expm1):
            node.target = _expm1_by_exp
    graph_module.recompile()
    return graph_module


def symbolic_backend(graph_module, example_inputs):
    """The traced graph as it is, with `expm1` miscomputed where sizes are symbolic."""
    return (_with_expm1_by_exp(graph_module) if _symbolic(graph_module) else graph_module).forward


def resize_backend(graph_module, example_inputs):
    """Exact at the sizes compiled for; `expm1` miscomputed at any other sizes (a symbolic compile run at a second size)."""
    first = [tuple(x.shape) for x in example_inputs if isinstance(x, torch.Tensor)]
    exact, generic = graph_module.forward, _with_expm1_by_exp(copy.deepcopy(graph_module)).forward

    def run(*args):
        return exact(*args) if [tuple(x.shape) for x in args if isinstance(x, torch.Tensor)] == first else generic(*args)

    return run


def option_backend(options):
    """A backend taking compiler options; `aggressive_fusion` miscomputes `expm1`, the rest change nothing."""

    def backend(graph_module, example_inputs):
        return (_with_expm1_by_exp(graph_module) if options.get(BUG_OPTION) else graph_module).forward

    return backend


class PlantedModes:
    """A target family over one of the backends above, compiling the run's size mode and options."""

    modes = DYNAMIC_MODES

    def __init__(self, name: str, options: dict | None = None):
        self.name = name
        self.options = dict(options or {})
        self.dynamic, self.marked = "static", ()

    def configured(self, run):
        check_modes(self.name, run, self.modes)
        unknown = sorted(set(run.options) - OPTION_NAMES) if self.name == "option_bug" else sorted(run.options)
        if unknown:
            raise numfuzz.targets.TargetError(f"{self.name} has no option {unknown[0]!r}")
        copy = PlantedModes(self.name, {**self.options, **run.options})
        copy.dynamic, copy.marked = run.dynamic, run.marked
        return copy

    def _backend(self):
        return BACKENDS[self.name] if self.name in BACKENDS else option_backend(self.options)

    def _backend_source(self) -> str:
        return f"planted_compile_modes.{BACKENDS[self.name].__name__}" if self.name in BACKENDS else f"planted_compile_modes.option_backend({self.options!r})"

    def available(self):
        return True, ""

    def reset(self):
        torch._dynamo.reset()

    def prepare(self, fn, device):
        compiled = torch.compile(fn, backend=self._backend(), dynamic=self.dynamic == "dynamic")
        return marking(compiled, self.marked) if self.marked else compiled

    def compile_count(self, compiled):
        return dynamo_compiles()

    def compile_count_source(self):
        return "from torch._dynamo.utils import counters", 'counters["stats"]["unique_graphs"]'

    def final_trace(self, compiled):
        return None

    def repro_source(self):
        expr = f"torch.compile(fn, backend={self._backend_source()}, dynamic={self.dynamic == 'dynamic'})"  # the script imports this module
        return [], f"mark_dims({expr}, {self.marked!r})" if self.marked else expr

    def repro_guard(self):
        return MARK_DIMS_SOURCE if self.marked else ""

    def min_elements(self, dtype, device):
        return 1


BACKENDS = {"symbolic_bug": symbolic_backend, "resize_bug": resize_backend}

# option_bug's configuration space: the bug's option drawn with others that change nothing here.
PLANTED_OPTIONS = """
[[planted_options]]
name = "fused-scalar"
options = { aggressive_fusion = true, "cpp.simdlen" = 1 }

[[planted_options]]
name = "fused-unsplit"
options = { aggressive_fusion = true, split_reductions = false, max_fusion_size = 1 }

[[planted_options]]
name = "scalar"
options = { "cpp.simdlen" = 1 }
"""
OPTION_NAMES = {"aggressive_fusion", "cpp.simdlen", "split_reductions", "max_fusion_size"}
add_section("planted_options", PLANTED_OPTIONS)


def _family(name: str):
    def make(arg):
        if arg:
            raise numfuzz.targets.TargetError(f"{name} takes no argument")
        return PlantedModes(name)

    return make


numfuzz.targets.register(
    "symbolic_bug", _family("symbolic_bug"), "torch.compile, expm1 computed as exp(x) - 1 where sizes are symbolic (planted)", modes=DYNAMIC_MODES
)
numfuzz.targets.register(
    "resize_bug", _family("resize_bug"), "torch.compile, expm1 computed as exp(x) - 1 at sizes other than the first compiled (planted)", modes=DYNAMIC_MODES
)
numfuzz.targets.register(
    "option_bug",
    _family("option_bug"),
    "torch.compile, expm1 computed as exp(x) - 1 under aggressive_fusion (planted)",
    config_space="planted_options",
)
