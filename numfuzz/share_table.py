"""Every chance a campaign draws with and its default, as one table: the generator's settings (`GenConfig.default`),
the run mix (`RunMix.default`), `CampaignConfig`'s shares and `numfuzz fuzz`'s options all come from it.

Each share is a chance per graph (a field of the generator's settings, `GenConfig`), per case (how it compiles and
runs, `RunMix`), or of the campaign itself (guidance and tracing, fields of `CampaignConfig`). A new share is one row
here (and the field that reads it). Torch-free and importing nothing of numfuzz, so that every layer may read it.
Each default says where it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    # Shares of cases compiled with symbolic sizes (dynamic=True; dims marked with mark_dynamic) and with options drawn
    # from the configuration space (numfuzz/data/compiler_configs.toml). Such a case compiles alone (no batch): on 2
    # loaded cores, torch 2.9.1, these shares (24% of cases) cost 14% of Inductor's graphs/min against static default
    # compiles (scripts/bench --modes-seconds 90); 0.15/0.1/0.2 and 0.15/0.1/0.15 cost 24% and 55% in two runs like it.
    # Above the seams' 10% on purpose: each such case reaches code a static compile never does (docs/dynamic-and-configs.md,
    # "What it costs"). torch.compile's default (dynamic=None), Python scalars passed as arguments, one value as both
    # operands: the shares are chosen in docs/scalars.md ("What it costs"), from a side-by-side run.
    Share("--dynamic-share", "dynamic", "mix", 0.1, "Chance that a case compiles with symbolic sizes (dynamic=True) and is checked again at a second size, on the same compile."),
    Share("--marked-share", "marked", "mix", 0.05, "Chance that a case marks some dims dynamic (mark_dynamic) instead, checked again at a second size of those dims."),
    Share("--automatic-share", "automatic", "mix", 0.1, "Chance that a case compiles as torch.compile does by default (dynamic=None: static, then symbolic after a change), checked again at a second size."),
    # Model-sized values, several intra-op threads, torch.autocast regions and real models' blocks: chosen in
    # docs/model-scale.md ("Cost and finding power") from side-by-side runs on torch 2.15.0. A large graph costs
    # 3.3 ordinary ones and a block 1.75; threads and autocast cost nothing measurable and reach code nothing else does.
    Share("--large-share", "large", "gen", 0.05, "Chance that a graph starts from a model-sized value (rows of 1024 to 32768, up to 2^21 elements a value), with fewer samples and no search."),
    Share("--threads-share", "thread_share", "mix", 0.1, "Chance that a case compiles and runs with one intra-op thread per available core (stored in the case: Inductor's parallel CPU code depends on it)."),
    Share("--autocast-share", "autocast", "gen", 0.1, "Chance that a graph, in fp32, runs part or all of its ops under torch.autocast (bf16, a quarter fp16); the float64 reference rounds where autocast casts."),
    Share("--blocks-share", "blocks", "gen", 0.1, "Chance that a graph starts from a real model's block (RMSNorm, LayerNorm with residual, SwiGLU MLP, RoPE, attention, cross-entropy, linear with activation, 3-d upsampling), then mutated."),
    # Windows of real models' graphs (numfuzz.program.zoo) and cases that judge their gradients: chosen in
    # docs/benchmarks.md ("Real models' graphs and gradients by default") from side-by-side runs.
    Share("--models-share", "models", "gen", 0.1, "Chance that a graph starts from a window of a real model's captured graph (numfuzz/data/zoo: transformers architectures and others, forward and forward with its loss), then grown and swapped as a block is."),
    Share("--grad-share", "grad_share", "mix", 0.1, "Chance that a case judges its gradients too, as --grad does for every case, on 16 samples at most (drawn per block of cases, so that a batch holds one kind: forward-only or with gradients, compile in batches)."),
    Share("--scalar-args-share", "scalar_args", "gen", 0.25, "Chance that a node's scalars (a clamp bound, a scale) are Python numbers passed at call time, and called again with second values."),
    Share("--repeat-share", "repeat", "gen", 0.05, "Chance that an elementwise op takes one value as two operands (x - x, x * x)."),
    Share("--config-share", "config_share", "mix", 0.1, "Chance that a case compiles with options drawn from the target's configuration space (numfuzz/data/compiler_configs.toml)."),
    # The seam-seeking graphs (numfuzz.program.seams) and the input search (DEFAULT_SEARCH, numfuzz.search), at the
    # shares that keep their cost within 10% of graphs/min. Measured on 2 cores, torch 2.14.1, batched Inductor: seams
    # 0.25 with search 0.5 cost 23% (a search candidate runs eager and float64 too, about 8 ms, against about 1.4 s of
    # compile a graph); these shares cost 5.0% over an hour (scripts/bench_search, README "Where compilers break").
    Share("--seams", "seams", "gen", 0.1, "Chance that a graph seeks a seam: sizes straddling vector widths, a reduction over a recomputed op, values repeated across the seam."),
    # The generator's own chances, at the values they have had since they were added: a strided input, a 0-d
    # broadcast partner, an input of another dtype than its partner.
    Share("--layouts-share", "layouts", "gen", 0.1, "Chance that a float input of rank 1 or more is a strided view: permuted, stepped with NaN in the gaps, or expanded with stride 0."),
    Share("--zero-dim-share", "zero_dim", "gen", 0.05, "Chance that a new broadcast partner of its first argument's shape is 0-d instead."),
    # Two more of the generator's own chances, for what 2026's upstream bugs needed and the two above rarely give: a 0-d
    # value along a dim (torch.sum(x0d, dim=0)), and an input that views a larger tensor (at an offset, its rows over
    # gaps). Each draws from its own stream, so the rest of a graph is drawn as before; the rates they give over generated
    # graphs are in docs/ops.md ("Input layouts and 0-d inputs").
    Share("--zero-dim-ops-share", "zero_dim_ops", "gen", 0.1, "Chance that an op along a dim (a reduction, a scan, a softmax, an index reduction) takes a 0-d value along dim 0 or -1, which torch reads as a dim of one element."),
    Share("--views-share", "views", "gen", 0.03, "Chance that a float input (0-d ones too) is a view into a larger tensor, as select, indexing or as_strided makes: at a storage offset, its rows stepping over gaps, NaN in what it skips."),
    # An op's argument left outside its domain: what a NaN does downstream (where, maximum, comparisons, nan_to_num).
    # Per guarded argument, so a graph with a domain-restricted op sees it a few times in a hundred; cost in docs/benchmarks.md.
    Share("--out-of-domain-share", "out_of_domain", "gen", 0.05, "Chance that an op's argument is left outside its domain (sqrt of a negative, acosh below 1): elements whose float64 reference is NaN are judged by class alone (nonfinite_class), and what the NaN does downstream."),
    # A graph whose first input has a size-0 dim: cheap (nothing to compute) and a corner compilers special-case.
    Share("--empty-share", "empty", "gen", 0.02, "Chance that a graph's first input has a dim of size 0 (an empty batch or cache): judged on running, shapes and dtypes, and the values of any output that is not empty."),
    # Integer programs: the surveyed 2026 CPU bugs need integer tensors as values in 16 of 34 (docs/upstream.md); the op
    # databases' integer forms are few among their float ones, so a share of graphs starts from an integer value.
    Share("--integers-share", "integers", "gen", 0.1, "Chance that a graph is an integer program: an integer or bool input grown by the op databases' integer forms, its values judged exactly against eager's."),
    # Float64 programs: see docs/ops.md "Float64 programs" for what they cost and found.
    Share("--fp64-share", "fp64", "gen", 0.05, "Chance that a graph is a float64 program over the ops a reference finer than float64 evaluates (elementwise math, sums and means), judged in float64 ULPs."),
    # A graph whose first input has one dim of 9 to 67, the others 1 or 2: odd tails past max_dim at a small cost.
    Share("--odd-tail-share", "odd_tail", "gen", 0.05, "Chance that a graph's first input has one dim of 9 to 67 (past --max-dim), its others 1 or 2: a vector loop's odd tail in a small case."),
    Share("--mix-dtypes-share", "mix_dtypes", "gen", 0.15, "Chance that a new input takes another dtype than its partner (type promotion)."),
    # Coverage guidance is off: side by side on two seeds (30 min, torch 2.15.0) it did not both reach more code and find
    # no fewer groups, and cost 14-16% of graphs/min (docs/benchmarks.md).
    Share("--guided-share", "guided_share", "campaign", 0.0, "Share of new cases drawn as mutations of earlier cases that reached new compiler code (coverage guidance; children are always traced)."),
    # Tracing every case cost 19% of Inductor's graphs/min on torch 2.15.0 (27.7 against 22.5, side by side); a quarter
    # costs about 5% and still draws the curve (docs/coverage.md).
    Share("--trace-share", "trace_share", "campaign", 0.25, "Share of cases whose run of the compiler's own Python is traced (coverage.py): fuzzer_stats, the progress line and the report show the lines reached over time."),
)  # fmt: skip


def defaults_of(kind: str) -> dict[str, float]:
    """The default of every share of one kind ("gen", "mix" or "campaign"), by field."""
    return {s.field: s.default for s in SHARES if s.of == kind}


def share_default(field: str) -> float:
    """The default of the share that sets `field`."""
    (share,) = [s for s in SHARES if s.field == field]
    return share.default
