"""Every chance a campaign draws with, as one table: `numfuzz fuzz`'s options and `CampaignConfig`'s defaults both come from it.

Each share is a chance per graph (a field of the generator's settings, `GenConfig`), per case
(how it compiles and runs, `RunMix`), or of the campaign itself (guidance and tracing, fields of
`CampaignConfig`). A new share is one row here; the command line, the defaults and the
campaign's configuration follow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from numfuzz.campaign import defaults as d
from numfuzz.program.space import GenConfig
from numfuzz.run_spec import RunMix


@dataclass(frozen=True)
class Share:
    flag: str
    field: str  # the GenConfig, RunMix or CampaignConfig field it sets
    of: str  # "gen" (per graph), "mix" (per case: how it compiles and runs) or "campaign"
    default: float
    help: str

    @property
    def parameter(self) -> str:
        """The option's name as click hands it over."""
        return self.flag.removeprefix("--").replace("-", "_")


SHARES = (
    Share("--dynamic-share", "dynamic", "mix", d.DEFAULT_DYNAMIC_SHARE, "Chance that a case compiles with symbolic sizes (dynamic=True) and is checked again at a second size, on the same compile."),
    Share("--marked-share", "marked", "mix", d.DEFAULT_MARKED_SHARE, "Chance that a case marks some dims dynamic (mark_dynamic) instead, checked again at a second size of those dims."),
    Share("--automatic-share", "automatic", "mix", d.DEFAULT_AUTOMATIC_SHARE, "Chance that a case compiles as torch.compile does by default (dynamic=None: static, then symbolic after a change), checked again at a second size."),
    Share("--large-share", "large", "gen", d.DEFAULT_LARGE_SHARE, "Chance that a graph starts from a model-sized value (rows of 1024 to 32768, up to 2^21 elements a value), with fewer samples and no search."),
    Share("--threads-share", "thread_share", "mix", d.DEFAULT_THREADS_SHARE, "Chance that a case compiles and runs with one intra-op thread per available core (stored in the case: Inductor's parallel CPU code depends on it)."),
    Share("--autocast-share", "autocast", "gen", d.DEFAULT_AUTOCAST_SHARE, "Chance that a graph, in fp32, runs part or all of its ops under torch.autocast (bf16, a quarter fp16); the float64 reference rounds where autocast casts."),
    Share("--blocks-share", "blocks", "gen", d.DEFAULT_BLOCKS_SHARE, "Chance that a graph starts from a real model's block (RMSNorm, LayerNorm with residual, SwiGLU MLP, RoPE, attention, cross-entropy, linear with activation, 3-d upsampling), then mutated."),
    Share("--models-share", "models", "gen", d.DEFAULT_MODELS_SHARE, "Chance that a graph starts from a window of a real model's captured graph (numfuzz/data/zoo: transformers architectures and others, forward and forward with its loss), then grown and swapped as a block is."),
    Share("--grad-share", "grad", "mix", d.DEFAULT_GRAD_SHARE, "Chance that a case judges its gradients too, as --grad does for every case (drawn per block of cases, so that a batch holds one kind: forward-only or with gradients, compile in batches)."),
    Share("--scalar-args-share", "scalar_args", "gen", d.DEFAULT_SCALAR_ARGS_SHARE, "Chance that a node's scalars (a clamp bound, a scale) are Python numbers passed at call time, and called again with second values."),
    Share("--repeat-share", "repeat", "gen", d.DEFAULT_REPEAT_SHARE, "Chance that an elementwise op takes one value as two operands (x - x, x * x)."),
    Share("--config-share", "config", "mix", d.DEFAULT_CONFIG_SHARE, "Chance that a case compiles with options drawn from the target's configuration space (numfuzz/data/compiler_configs.toml)."),
    Share("--seams", "seams", "gen", d.DEFAULT_SEAMS, "Chance that a graph seeks a seam: sizes straddling vector widths, a reduction over a recomputed op, values repeated across the seam."),
    Share("--layouts-share", "layouts", "gen", d.DEFAULT_LAYOUTS_SHARE, "Chance that a float input of rank 1 or more is a strided view: permuted, stepped with NaN in the gaps, or expanded with stride 0."),
    Share("--zero-dim-share", "zero_dim", "gen", d.DEFAULT_ZERO_DIM_SHARE, "Chance that a new broadcast partner of its first argument's shape is 0-d instead."),
    Share("--out-of-domain-share", "out_of_domain", "gen", d.DEFAULT_OUT_OF_DOMAIN_SHARE, "Chance that an op's argument is left outside its domain (sqrt of a negative, acosh below 1): elements whose float64 reference is NaN are left out, what the NaN does downstream is judged."),
    Share("--empty-share", "empty", "gen", d.DEFAULT_EMPTY_SHARE, "Chance that a graph's first input has a dim of size 0 (an empty batch or cache): judged on running, shapes and dtypes, and the values of any output that is not empty."),
    Share("--fp64-share", "fp64", "gen", d.DEFAULT_FP64_SHARE, "Chance that a graph is a float64 program over the ops a reference finer than float64 evaluates (elementwise math, sums and means), judged in float64 ULPs."),
    Share("--odd-tail-share", "odd_tail", "gen", d.DEFAULT_ODD_TAIL_SHARE, "Chance that a graph's first input has one dim of 9 to 67 (past --max-dim), its others 1 or 2: a vector loop's odd tail in a small case."),
    Share("--mix-dtypes-share", "mix_dtypes", "gen", d.DEFAULT_MIX_DTYPES_SHARE, "Chance that a new input takes another dtype than its partner (type promotion)."),
    Share("--guided-share", "guided_share", "campaign", d.DEFAULT_GUIDED_SHARE, "Share of new cases drawn as mutations of earlier cases that reached new compiler code (coverage guidance; children are always traced)."),
    Share("--trace-share", "trace_share", "campaign", d.DEFAULT_TRACE_SHARE, "Share of cases whose run of the compiler's own Python is traced (coverage.py): fuzzer_stats, the progress line and the report show the lines reached over time."),
)  # fmt: skip


def _of(kind: str, values: dict[str, float] | None = None) -> dict[str, float]:
    """The fields of one kind, from `values` (by option parameter) or at their defaults."""
    return {s.field: (s.default if values is None else values[s.parameter]) for s in SHARES if s.of == kind}


def default_gen(**settings: Any) -> GenConfig:
    """The program space `numfuzz fuzz` draws from by default; `settings`: the generator's other fields (ops, sizes)."""
    return GenConfig(**{**_of("gen"), **settings})


def default_mix(cores: int | None = None) -> RunMix:
    """The run mix `numfuzz fuzz` draws by default, with `cores` threads (default: the cores available here) for its threaded cases."""
    return RunMix(**_of("mix"), thread_count=cores if cores is not None else d.available_cores())


def split_shares(options: dict[str, Any], cores: int, **gen_settings: Any) -> tuple[GenConfig, RunMix, dict[str, float]]:
    """The generator's settings, the run mix and the campaign's own shares from the parsed options; ValueError for a bad combination."""
    return GenConfig(**_of("gen", options), **gen_settings), RunMix(**_of("mix", options), thread_count=cores), _of("campaign", options)
