"""Registers the built-in target families. Heavy packages are imported only when a target is asked for."""

from __future__ import annotations

from numfuzz.targets.eager import make_eager
from numfuzz.targets.inductor import Inductor
from numfuzz.targets.registry import register
from numfuzz.targets.thunder import FX_MODES, JIT_MODES, Thunder

register("eager", make_eager, "PyTorch eager: the baseline", ("eager",))
register(
    "thunder",
    lambda arg: Thunder(arg),
    "thunder.jit with executors (default torchcompile) and options",
    ("thunder:torch", "thunder:torchcompile", "thunder:nvfuser", "thunder:nvfuser:nv_enable_linear=1,nv_enable_matmul=1"),
    modes=JIT_MODES,
    config_space="thunder",
)
register("inductor", Inductor, "torch.compile with Inductor; options after ':'", ("inductor",), modes=Inductor.modes, config_space="inductor")
register("thunderfx", lambda arg: Thunder(arg, fx=True), "torch.compile with Thunder as backend", ("thunderfx", "thunderfx:torchcompile"), modes=FX_MODES)
