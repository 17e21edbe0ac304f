"""One benchmark campaign and what it measured, shared by the bench scripts."""

from __future__ import annotations

import json
import resource
import statistics
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def slope_mib_per_100(points: dict[int, list[tuple[int, int]]]) -> float:
    """Least-squares RSS growth per 100 cases, over the last two thirds of each worker's points."""
    slopes = []
    for series in points.values():
        series = series[len(series) // 3 :]  # past the warm-up (allocator pools, first kernels)
        if len(series) < 5:
            continue
        xs, ys = [x for x, _ in series], [y / 2**20 for _, y in series]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        var = sum((x - mx) ** 2 for x in xs)
        if var:
            slopes.append(100 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var)
    return statistics.fmean(slopes) if slopes else float("nan")


def planted_imports(target: str) -> tuple[str, ...]:
    """The planted bugs' module, for campaigns that run them (it needs Thunder, which the newest torch lacks)."""
    return (str(ROOT / "examples" / "planted_bugs.py"),) if "bug_" in target else ()


def campaign(
    target: str, seconds: float | None, workers: int, samples: int, seed: int, batch: int | None = 1, graphs: int | None = None, gen=None, **extra
) -> dict:
    """One campaign without minimisation; `target`: one or several, comma-separated; `batch` None: the target's default; `extra`: more CampaignConfig fields."""
    from numfuzz.campaign.loop import CampaignConfig, run_campaign
    from numfuzz.program.generator import GenConfig

    with tempfile.TemporaryDirectory(prefix="numfuzz-bench-") as corpus:
        own = resource.getrusage(resource.RUSAGE_SELF)
        config = CampaignConfig(
            targets=target.split(","), seconds=seconds, graphs=graphs, seed=seed, corpus=Path(corpus), samples=samples, workers=workers, batch=batch,
            gen=gen or GenConfig(), imports=planted_imports(target), minimize=False, progress=False, **extra,
        )  # fmt: skip
        summary = run_campaign(config)
        after = resource.getrusage(resource.RUSAGE_SELF)
        findings = sorted(p.name for p in summary.findings)
        case_seeds = {p.name: json.loads(p.read_text())["provenance"]["seed"] for p in summary.findings}  # which graph each came from
    stats = summary.stats
    cpu = stats.cpu
    target_cpu = cpu["target_compile"] + cpu["target_run"]
    total_cpu = sum(cpu.values()) or 1.0
    memory = stats.memory_trend()
    return {
        "target": target,
        "seconds": round(stats.run_seconds, 1),
        "graphs": stats.run_graphs,
        "graphs_per_min": round(stats.graphs_per_minute(), 1),
        "steady_graphs_per_min": round(stats.steady_graphs_per_minute(), 1),
        "samples_per_s": round(stats.samples_per_second(), 1),
        "warm_case_s": round(stats.busy_s / stats.cases, 3) if stats.cases else None,
        "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
        "target_share": round(target_cpu / total_cpu, 3),
        "numfuzz_share": round(1 - target_cpu / total_cpu, 3),
        "campaign_process_cpu_s": round(after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime, 2),
        "verdicts": {t: dict(c) for t, c in stats.verdicts.items()},
        "findings": findings,
        "case_seeds": case_seeds,
        "batched": stats.batched,
        "errors": stats.errors,
        "restarts": dict(stats.restarts),
        "rss_early_mib": round(memory["early_mib"], 1),
        "rss_last_mib": round(memory["last_mib"], 1),
        "rss_peak_mib": round(memory["peak_mib"], 1),
        "rss_slope_mib_per_100_cases": round(slope_mib_per_100(stats.memory), 2),
    }
