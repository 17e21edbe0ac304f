"""`numfuzz fuzz`'s shares: the chance per graph or per case of each program feature and compile mode, as one option group.

Each share is a click option and a field of the generator's settings (`GenConfig`) or of the
run mix (`RunMix`); `gen_and_mix` builds both from the parsed options, so a new share is one row here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import click

from numfuzz.campaign import defaults as d


@dataclass(frozen=True)
class Share:
    flag: str
    field: str  # the GenConfig or RunMix field it sets
    of: str  # "gen" (per graph) or "mix" (per case: how it compiles and runs)
    default: float
    help: str


SHARES = (
    Share("--dynamic-share", "dynamic", "mix", d.DEFAULT_DYNAMIC_SHARE, "Chance that a case compiles with symbolic sizes (dynamic=True) and is checked again at a second size, on the same compile."),
    Share("--marked-share", "marked", "mix", d.DEFAULT_MARKED_SHARE, "Chance that a case marks some dims dynamic (mark_dynamic) instead, checked again at a second size of those dims."),
    Share("--automatic-share", "automatic", "mix", d.DEFAULT_AUTOMATIC_SHARE, "Chance that a case compiles as torch.compile does by default (dynamic=None: static, then symbolic after a change), checked again at a second size."),
    Share("--large-share", "large", "gen", d.DEFAULT_LARGE_SHARE, "Chance that a graph starts from a model-sized value (rows of 1024 to 32768, up to 2^21 elements a value), with fewer samples and no search."),
    Share("--threads-share", "threads", "mix", d.DEFAULT_THREADS_SHARE, "Chance that a case compiles and runs with one intra-op thread per available core (stored in the case: Inductor's parallel CPU code depends on it)."),
    Share("--autocast-share", "autocast", "gen", d.DEFAULT_AUTOCAST_SHARE, "Chance that a graph, in fp32, runs part or all of its ops under torch.autocast (bf16, a quarter fp16); the float64 reference rounds where autocast casts."),
    Share("--blocks-share", "blocks", "gen", d.DEFAULT_BLOCKS_SHARE, "Chance that a graph starts from a real model's block (RMSNorm, LayerNorm with residual, SwiGLU MLP, RoPE, attention, cross-entropy, linear with activation), then mutated."),
    Share("--scalar-args-share", "scalar_args", "gen", d.DEFAULT_SCALAR_ARGS_SHARE, "Chance that a node's scalars (a clamp bound, a scale) are Python numbers passed at call time, and called again with second values."),
    Share("--repeat-share", "repeat", "gen", d.DEFAULT_REPEAT_SHARE, "Chance that an elementwise op takes one value as two operands (x - x, x * x)."),
    Share("--config-share", "config", "mix", d.DEFAULT_CONFIG_SHARE, "Chance that a case compiles with options drawn from the target's configuration space (numfuzz/data/compiler_configs.toml)."),
)  # fmt: skip


def _parameter(share: Share) -> str:
    return share.flag.removeprefix("--").replace("-", "_")


def share_options(command: Callable) -> Callable:
    """The share options, in the order of SHARES in `--help`."""
    for share in reversed(SHARES):
        command = click.option(share.flag, type=click.FloatRange(0, 1), default=share.default, show_default=True, help=share.help)(command)
    return command


def gen_and_mix(options: dict[str, Any], cores: int, **gen_settings: Any) -> tuple[Any, Any]:
    """The generator's settings and the run mix from the parsed share options; ValueError for a bad combination."""
    from numfuzz.program.space import GenConfig
    from numfuzz.run_spec import RunMix

    gen = {s.field: options[_parameter(s)] for s in SHARES if s.of == "gen"}
    mix = {s.field: options[_parameter(s)] for s in SHARES if s.of == "mix"}
    return GenConfig(**gen_settings, **gen), RunMix(**mix, thread_count=cores)
