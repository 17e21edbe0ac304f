"""What a campaign has done: verdict counts, op coverage, cost split, memory, and how it is shown.

The counters are cumulative over every run of a campaign (they are saved with its journal);
rates and memory are for the current run. `fuzzer_stats` renders them in AFL's key : value
style, `table` as the closing summary.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from numfuzz.campaign.reach import CompilerReach
from numfuzz.judge.verdicts import Verdict

CPU_PHASES = ("generate", "target_compile", "target_run", "eval", "housekeeping")
MEMORY_POINTS = 240  # the RSS trend keeps at most this many samples per worker slot
ERROR = "error"  # the verdict column for cases numfuzz itself failed on


@dataclass
class CampaignStats:
    verdicts: dict[str, Counter] = field(default_factory=dict)  # target -> verdict -> cases
    coverage: dict[str, Counter] = field(default_factory=dict)  # target -> op -> cases that used it
    cases: int = 0  # one case = one graph on one target
    batched: int = 0  # cases whose verdict came from a batch compiled together (numfuzz.runner.batch)
    kinds: Counter = field(default_factory=Counter)  # cases by what they were drawn as (`Case.kinds`): gradients, model
    samples: int = 0  # input samples evaluated
    findings: int = 0
    errors: int = 0  # numfuzz's own failures (saved under errors/)
    own_marks: int = 0  # invalid cases: a dim numfuzz marked dynamic that the program specialises (no compiler finding)
    minimized: int = 0
    minimize_failed: int = 0
    minimize_partial: int = 0  # stopped early (tail spent, interrupted): smallest so far saved, resumed next run
    minimize_candidates: int = 0  # candidates the minimiser judged
    restarts: Counter = field(default_factory=Counter)  # why a worker was replaced -> count
    cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(CPU_PHASES, 0.0))  # worker CPU s
    busy_s: float = 0.0  # worker wall time spent on cases
    elapsed_s: float = 0.0  # wall time of earlier runs
    reach: CompilerReach = field(default_factory=CompilerReach)  # compiler lines and kernel shapes reached (traced cases)
    # this run only
    run_start: float = field(default_factory=time.monotonic)
    run_first_result: float | None = None  # when the first case came back (workers warm)
    run_graphs: int = 0
    run_cases: int = 0
    run_samples: int = 0
    memory: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # slot -> [(cases served, RSS)]
    peak_rss: int = 0

    def record(self, target: str, verdict: Verdict | None, ops: list[str], samples: int, cpu: dict[str, float] | None = None, wall: float = 0.0) -> None:
        """One case done; `verdict` None when numfuzz itself failed on it (counted as an error)."""
        if self.run_first_result is None:
            self.run_first_result = time.monotonic()
        self.verdicts.setdefault(target, Counter())[verdict.value if verdict else ERROR] += 1
        self.errors += verdict is None
        self.coverage.setdefault(target, Counter()).update(set(ops))
        self.cases += 1
        self.run_cases += 1
        self.samples += samples
        self.run_samples += samples
        self.findings += verdict is not None and verdict.is_finding
        for phase, seconds in (cpu or {}).items():
            self.cpu[phase] = self.cpu.get(phase, 0.0) + float(seconds)
        self.busy_s += wall

    def record_reach(self, reach: dict[str, Any] | None, ops: list[str]) -> bool:
        """A traced case's compiler lines and kernel shapes (`numfuzz.campaign.reach`); whether any was new to the campaign."""
        return self.reach.record(reach, ops, self.graphs_done_total, self.elapsed_s + self.run_seconds) > 0

    def record_memory(self, slot: int, served: int, rss: int | None) -> None:
        if not rss:
            return
        self.peak_rss = max(self.peak_rss, rss)
        points = self.memory.setdefault(slot, [])
        points.append((served, rss))
        if len(points) > MEMORY_POINTS:  # keep the first point, thin the rest evenly
            del points[1::2]

    # --- derived -------------------------------------------------------------------------------

    @property
    def graphs_done_total(self) -> int:
        """Graphs over every run: the cases counted so far, per target (a graph runs once on each)."""
        return max(self.cases // max(len(self.verdicts), 1), self.run_graphs)

    @property
    def run_seconds(self) -> float:
        return time.monotonic() - self.run_start

    def graphs_per_minute(self) -> float:
        return 60.0 * self.run_graphs / self.run_seconds if self.run_seconds > 0 else 0.0

    def steady_graphs_per_minute(self) -> float:
        """As graphs_per_minute, but from the first result on: without the workers' cold start."""
        if self.run_first_result is None or self.run_graphs < 2:
            return 0.0
        return 60.0 * (self.run_graphs - 1) / max(time.monotonic() - self.run_first_result, 1e-9)

    def samples_per_second(self) -> float:
        return self.run_samples / self.run_seconds if self.run_seconds > 0 else 0.0

    def by_symptom(self) -> Counter:
        found: Counter = Counter()
        for counts in self.verdicts.values():
            found.update({v: n for v, n in counts.items() if v != ERROR and Verdict(v).is_finding})
        return found

    def cpu_shares(self) -> dict[str, float]:
        total = sum(self.cpu.values())
        return {phase: (seconds / total if total else 0.0) for phase, seconds in self.cpu.items()}

    def memory_trend(self) -> dict[str, float]:
        """RSS of the workers in MiB: after warm-up (median of each slot's first tenth), at the end, and at peak."""
        firsts, lasts = [], []
        for points in self.memory.values():
            rss = [r for _, r in points]
            if len(rss) >= 2:
                head = sorted(rss[: max(2, len(rss) // 10)])
                firsts.append(head[len(head) // 2])
                lasts.append(rss[-1])
        mib = 1 / 2**20
        return {
            "early_mib": sum(firsts) * mib / len(firsts) if firsts else math.nan,
            "last_mib": sum(lasts) * mib / len(lasts) if lasts else math.nan,
            "peak_mib": self.peak_rss * mib,
        }

    # --- persistence ---------------------------------------------------------------------------

    def to_json(self, with_lines: bool = True) -> dict[str, Any]:
        """Everything, or without the compiler lines reached (`CompilerReach.to_json`)."""
        return {
            "verdicts": {t: dict(c) for t, c in self.verdicts.items()},
            "coverage": {t: dict(sorted(c.items())) for t, c in self.coverage.items()},
            "cases": self.cases,
            "batched": self.batched,
            "kinds": dict(self.kinds),
            "samples": self.samples,
            "findings": self.findings,
            "errors": self.errors,
            "own_marks": self.own_marks,
            "minimized": self.minimized,
            "minimize_failed": self.minimize_failed,
            "minimize_partial": self.minimize_partial,
            "minimize_candidates": self.minimize_candidates,
            "restarts": dict(self.restarts),
            "cpu": {k: round(v, 3) for k, v in self.cpu.items()},
            "busy_s": round(self.busy_s, 3),
            "elapsed_s": round(self.elapsed_s + self.run_seconds, 3),
            **({"reach": self.reach.to_json(with_lines)} if self.reach.traced else {}),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> CampaignStats:
        stats = CampaignStats()
        stats.verdicts = {t: Counter(c) for t, c in data.get("verdicts", {}).items()}
        stats.coverage = {t: Counter(c) for t, c in data.get("coverage", {}).items()}
        for name in (
            "cases",
            "batched",
            "samples",
            "findings",
            "errors",
            "own_marks",
            "minimized",
            "minimize_failed",
            "minimize_partial",
            "minimize_candidates",
        ):
            setattr(stats, name, int(data.get(name, 0)))
        stats.restarts = Counter(data.get("restarts", {}))
        stats.kinds = Counter(data.get("kinds", {}))
        stats.cpu.update({k: float(v) for k, v in data.get("cpu", {}).items()})
        stats.busy_s = float(data.get("busy_s", 0.0))
        stats.elapsed_s = float(data.get("elapsed_s", 0.0))
        stats.reach = CompilerReach.from_json(data.get("reach"))
        return stats

    # --- views ---------------------------------------------------------------------------------

    def postfix(self) -> str:
        """The progress bar's tail: rates, findings, the commonest symptoms."""
        symptoms = " ".join(f"{v}={n}" for v, n in self.by_symptom().most_common(4))
        restarts = sum(self.restarts.values())
        return (
            f"{self.graphs_per_minute():.1f} g/min, {self.samples_per_second():.0f} samples/s, {self.findings} findings"
            + (f" ({symptoms})" if symptoms else "")
            + (f", {restarts} restarts" if restarts else "")
            + self.reach.postfix()
        )

    def fuzzer_stats(self, header: dict[str, Any]) -> str:
        """AFL-style `key : value` lines, one snapshot of the campaign."""
        memory = self.memory_trend()
        rows: dict[str, Any] = {
            **header,
            "last_update": int(time.time()),
            "fuzzer_pid": os.getpid(),
            "run_time": round(self.run_seconds, 1),
            "total_time": round(self.elapsed_s + self.run_seconds, 1),
            "graphs_this_run": self.run_graphs,
            "cases_done": self.cases,
            "cases_this_run": self.run_cases,
            "cases_batched": self.batched,
            "cases_with_gradients": self.kinds["gradients"],
            "cases_from_models": self.kinds["model"],
            "samples_done": self.samples,
            "graphs_per_min": round(self.graphs_per_minute(), 2),
            "samples_per_sec": round(self.samples_per_second(), 1),
            "findings": self.findings,
            **{f"findings_{v}": n for v, n in sorted(self.by_symptom().items())},
            "errors": self.errors,
            "invalid_own_mark": self.own_marks,
            "minimized": self.minimized,
            "minimize_failed": self.minimize_failed,
            "minimize_partial": self.minimize_partial,
            "minimize_candidates": self.minimize_candidates,
            "worker_restarts": sum(self.restarts.values()),
            **{f"restarts_{k.replace(' ', '_')}": n for k, n in sorted(self.restarts.items())},
            **{f"cpu_share_{k}": round(v, 4) for k, v in self.cpu_shares().items()},
            "worker_rss_early_mib": round(memory["early_mib"], 1),
            "worker_rss_last_mib": round(memory["last_mib"], 1),
            "worker_rss_peak_mib": round(memory["peak_mib"], 1),
            "ops_covered": len(set().union(*self.coverage.values())),
            **self.reach.rows(self.graphs_done_total),
        }
        width = max(len(k) for k in rows)
        return "".join(f"{k:<{width}} : {v}\n" for k, v in rows.items())

    def table(self, all_ops: list[str] | None = None) -> str:
        order = [v.value for v in Verdict] + [ERROR]
        used = [v for v in order if any(c[v] for c in self.verdicts.values())]
        width = max([len(t) for t in self.verdicts] + [6])
        lines = [f"{'target':<{width}}  " + "  ".join(f"{v:>{max(len(v), 5)}}" for v in used)]
        for target, counts in self.verdicts.items():
            lines.append(f"{target:<{width}}  " + "  ".join(f"{counts[v]:>{max(len(v), 5)}}" for v in used))
        lines.append(
            f"this run: {self.run_graphs} graphs, {self.run_cases} cases in {self.run_seconds:.0f} s "
            f"({self.graphs_per_minute():.1f} graphs/min, {self.samples_per_second():.0f} samples/s)"
        )
        restarts = ", ".join(f"{k} {n}" for k, n in self.restarts.most_common())
        lines.append(
            f"campaign: {self.cases} cases, {self.findings} findings, {self.errors} numfuzz errors, "
            f"{self.minimized} minimised ({self.minimize_failed} failed"
            + (f", {self.minimize_partial} stopped early" if self.minimize_partial else "")
            + f"), worker restarts: {restarts or 'none'}"
        )
        shares = self.cpu_shares()
        if any(shares.values()):
            lines.append("worker CPU: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in shares.items()))
        memory = self.memory_trend()
        if not math.isnan(memory["early_mib"]):
            lines.append(f"worker RSS: {memory['early_mib']:.0f} MiB after warm-up, {memory['last_mib']:.0f} MiB at the end, peak {memory['peak_mib']:.0f} MiB")
        for target, ops in self.coverage.items():
            unused = sorted(set(all_ops or []) - set(ops))
            shown = f"; never drawn: {', '.join(unused)}" if unused and len(unused) <= 12 else ""
            lines.append(f"coverage {target}: {len(ops)}/{len(all_ops or ops)} ops in {sum(self.verdicts.get(target, {}).values())} cases{shown}")
        return "\n".join(lines)
