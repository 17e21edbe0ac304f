"""A campaign's one typed configuration, immutable and torch-free; it builds the settings its workers get.

The campaign's run specifications (one per target: device, samples, search, imports) are made
here once; a worker receives them whole, so `--samples` goes from the command line to the case
in one typed value. The journal's identity is derived from this configuration, in the form
earlier versions wrote, so that a campaign they began still resumes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from numfuzz.campaign.defaults import (
    DEFAULT_CASE_TIMEOUT_S,
    DEFAULT_MINIMIZE_TAIL_S,
    DEFAULT_MINIMIZE_TIMEOUT_S,
    FIRST_CASE_GRACE_S,
    RECYCLE_GROWTH,
    available_cores,
)
from numfuzz.program.space import GenConfig
from numfuzz.run_spec import DEFAULT_SAMPLES, DEFAULT_SEARCH, RunMix, RunSpec
from numfuzz.share_table import share_default
from numfuzz.workers.settings import WorkerSettings

# The generator's fields when journals were first written. A field added later is left out of a campaign's identity at
# the value it was added with (these; a share, 0), so that a campaign there is named as before it existed.
FIRST_GEN_FIELDS = ("min_nodes", "max_nodes", "max_rank", "max_dim", "mix_dtypes", "ops", "seams")
ADDED_WITH = {"layouts": 0.1, "zero_dim": 0.05, "zero_dim_ops": 0.1, "views": 0.03}
STATS_INTERVAL_S = 2.0  # journal, stats file and coverage; a killed run redoes at most this much


def absolute_imports(imports: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """--import files as absolute paths (workers and repro scripts import them from elsewhere); module names as given."""
    return tuple(str(Path(s).resolve()) if s.endswith(".py") or Path(s).exists() else s for s in imports)


@dataclass(frozen=True)
class CampaignConfig:
    targets: tuple[str, ...]  # target specs (or Target objects, taken by name)
    graphs: int | None = None  # stop when this shard has this many graphs done, over all runs ...
    seconds: float | None = None  # ... or after this much wall time in this run
    seed: int = 0
    corpus: Path | None = None
    samples: int = DEFAULT_SAMPLES
    search: float = DEFAULT_SEARCH  # the input search's share of the samples
    grad: bool = False  # judge every input's gradient too (the search and batches are off then)
    device: str = "cpu"
    # every default is `numfuzz fuzz`'s (the shares table, `numfuzz.share_table`)
    gen: GenConfig = field(default_factory=GenConfig.default)  # the program space
    mix: RunMix = field(default_factory=lambda: RunMix.default(available_cores()))  # shares of symbolic sizes, threads and compiler options
    workers: int = 1  # with `ray`: at most this many (0: one per CPU of the cluster, or per GPU on CUDA)
    ray: str | None = None  # a Ray cluster's address ("local": start one here); its actors host the workers
    shard: tuple[int, int] = (0, 1)
    case_timeout: float = DEFAULT_CASE_TIMEOUT_S
    first_case_grace: float = FIRST_CASE_GRACE_S
    memory_limit: int | None = None  # bytes per worker; None: an even share of 80% of RAM; 0: none
    recycle_growth: int | None = RECYCLE_GROWTH  # replace a worker whose RSS grew this much past its warm level (0: after every case)
    imports: tuple[str, ...] = ()  # --import modules and files, imported in every worker
    minimize: bool = True
    minimize_timeout: float = DEFAULT_MINIMIZE_TIMEOUT_S
    known_files: tuple[str, ...] = ()  # known-issues files besides the shipped one
    bound_files: tuple[str, ...] = ()  # bounds files besides the shipped one (--bounds), handed to every worker
    minimize_tail: float = DEFAULT_MINIMIZE_TAIL_S  # after the last case; the rest waits for the next run
    batch: int | None = None  # cases compiled together; None: each target's own default
    guided_share: float = share_default("guided_share")  # share of new cases drawn as mutations of parents that reached new compiler code (`campaign.guidance`)
    trace_share: float = share_default(
        "trace_share"
    )  # share of cases whose compiler lines are traced (not part of the campaign's identity: it changes no case)
    progress: bool = True
    stats_interval: float = STATS_INTERVAL_S

    def __post_init__(self) -> None:
        if self.graphs is None and self.seconds is None:
            raise ValueError("a campaign needs a budget: graphs or seconds")
        set_ = lambda name, value: object.__setattr__(self, name, value)
        set_("targets", tuple(t if isinstance(t, str) else t.name for t in self.targets))
        set_("imports", absolute_imports(self.imports))
        set_("known_files", tuple(str(f) for f in self.known_files))
        set_("bound_files", tuple(str(Path(f).resolve()) for f in self.bound_files))
        set_("shard", tuple(self.shard))
        self.runs()  # a bad sample count or search share fails here, not in a worker

    def runs(self) -> tuple[RunSpec, ...]:
        """The run specification of each target's cases."""
        return tuple(self.run_for(t) for t in self.targets)

    def run_for(self, target: str) -> RunSpec:
        return RunSpec(target, self.device, self.samples, self.search, self.imports, self.grad)

    def identity(self) -> dict:
        """What makes two runs the same campaign, so that one may resume the other (the journal's name hashes it)."""
        gen = {f.name: list(v) if isinstance(v := getattr(self.gen, f.name), tuple) else v for f in fields(self.gen)}
        for later in [name for name in gen if name not in FIRST_GEN_FIELDS]:
            if gen[later] == ADDED_WITH.get(later, 0.0):
                del gen[later]
        # search and the seam widths were generator settings when journals were first written
        gen.update(device="cuda" if self.device.startswith("cuda") else "cpu", search=self.search)
        identity = {
            "seed": self.seed,
            "shard": f"{self.shard[0]}/{self.shard[1]}",
            "targets": sorted(self.targets),
            "samples": self.samples,
            "device": self.device,
            "gen": gen,
        }
        identity = {**identity, "grad": True} if self.grad else identity
        identity = {**identity, "guided": self.guided_share} if self.guided_share else identity  # children are other cases
        mix = asdict(self.mix)  # shares added later are named only where drawn, so that older journals keep their names
        # the journal's names for them
        mix["threads"], mix["config"], mix["grad"] = mix.pop("thread_share"), mix.pop("config_share"), mix.pop("grad_share")
        for later, drawn in (
            ("automatic", self.mix.automatic),
            ("threads", self.mix.thread_share),
            ("thread_count", self.mix.thread_share),
            ("grad", self.mix.grad_share),
        ):
            if not drawn:
                del mix[later]
        return {**identity, "mix": mix} if not self.mix.off else identity  # a campaign without the mix keeps its journal

    def worker_settings(self, memory_limit: int | None, thread_count: int) -> WorkerSettings:
        """The settings every worker of this campaign starts with; `memory_limit` is each worker's share."""
        return WorkerSettings(
            runs=self.runs(),
            programs=self.gen,
            mix=self.mix,
            case_timeout=self.case_timeout,
            memory_limit=memory_limit,
            recycle_bytes=int(0.75 * memory_limit) if memory_limit else None,  # leave before the watchdog must kill
            recycle_growth=self.recycle_growth,
            thread_count=thread_count,
            trace_share=self.trace_share,
            draws_children=self.guided_share > 0,
            bound_files=self.bound_files,
        )
