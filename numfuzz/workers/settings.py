"""What a worker process is started with: plain, typed, immutable data, unpickled before torch is imported.

`numfuzz.campaign.config.CampaignConfig.worker_settings` builds one for a campaign; `numfuzz replay`
and the minimiser's isolated workers build their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from numfuzz.program.space import GenConfig
from numfuzz.run_spec import RunMix, RunSpec
from numfuzz.workers.defaults import DEFAULT_CASE_TIMEOUT_S


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker process is started with: plain, typed data, unpickled before torch is imported."""

    runs: tuple[RunSpec, ...]  # one per target the worker serves
    programs: GenConfig = field(default_factory=GenConfig)
    mix: RunMix = field(default_factory=RunMix)  # the shares of cases drawn with symbolic sizes and compiler options
    case_timeout: float = DEFAULT_CASE_TIMEOUT_S
    memory_limit: int | None = None  # bytes; an allocation past it fails inside the target (an OOM finding)
    recycle_bytes: int | None = None  # leave after a reply once RSS passes this
    recycle_growth: int | None = None  # ... or once it grew this much past its warm level
    thread_count: int | None = None  # torch's intra-op threads (None: torch's own)
    log_path: str = ""  # set for each worker by its pool
    draws_children: bool = False  # the campaign draws guided children (each traced, whatever the share)
    trace_share: float = 0.0  # share of cases whose compiler lines are traced (`numfuzz.workers.compiler_reach`)
    bound_files: tuple[str, ...] = ()  # --bounds: the worker judges by the shipped bounds plus these

    @property
    def device(self) -> str:
        return self.runs[0].device or "cpu"

    @property
    def imports(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(spec for run in self.runs for spec in run.imports))

    def run_for(self, target: str) -> RunSpec:
        return next(run for run in self.runs if run.target == target)

    def with_changes(self, **changes: object) -> WorkerSettings:
        return replace(self, **changes)
