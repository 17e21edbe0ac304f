"""The fuzzing loop: draw cases, run them on every target, save what is found."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from loguru import logger
from tqdm import tqdm

from numfuzz.cases import make_case, run_case
from numfuzz.corpus import save_case
from numfuzz.generator import GenConfig, case_seed
from numfuzz.targets import Target
from numfuzz.verdicts import Verdict


@dataclass
class CampaignConfig:
    targets: list[Target]
    graphs: int | None = None  # stop after this many graphs ...
    seconds: float | None = None  # ... or after this much wall time
    seed: int = 0
    corpus: Path | None = None
    samples: int = 16
    device: str = "cpu"
    gen: GenConfig = field(default_factory=GenConfig)


@dataclass
class CampaignSummary:
    graphs: int = 0
    seconds: float = 0.0
    verdicts: dict[str, Counter] = field(default_factory=dict)  # target -> verdict -> count
    findings: list[Path] = field(default_factory=list)

    def record(self, target: str, verdict: Verdict) -> None:
        self.verdicts.setdefault(target, Counter())[verdict.value] += 1

    @property
    def graphs_per_minute(self) -> float:
        return 60.0 * self.graphs / self.seconds if self.seconds else 0.0

    def table(self) -> str:
        order = [v.value for v in Verdict]
        used = [v for v in order if any(c[v] for c in self.verdicts.values())]
        width = max([len(t) for t in self.verdicts] + [6])
        lines = [f"{'target':<{width}}  " + "  ".join(f"{v:>{max(len(v), 5)}}" for v in used)]
        for target, counts in self.verdicts.items():
            lines.append(f"{target:<{width}}  " + "  ".join(f"{counts[v]:>{max(len(v), 5)}}" for v in used))
        lines.append(f"{self.graphs} graphs in {self.seconds:.0f} s ({self.graphs_per_minute:.1f} graphs/min); {len(self.findings)} findings saved")
        return "\n".join(lines)


def run_campaign(config: CampaignConfig) -> CampaignSummary:
    if config.graphs is None and config.seconds is None:
        raise ValueError("a campaign needs a budget: graphs or seconds")
    summary = CampaignSummary()
    findings_dir = config.corpus / "findings" if config.corpus else None
    start = time.monotonic()
    bar = tqdm(total=config.graphs, unit="graph", dynamic_ncols=True, disable=None)
    index = 0
    try:
        while (config.graphs is None or index < config.graphs) and (
            config.seconds is None or time.monotonic() - start < config.seconds
        ):
            seed = case_seed(config.seed, index)
            for target in config.targets:
                case = make_case(seed, target.name, config.samples, config.gen, config.device)
                outcome = run_case(case, target, config.device)
                summary.record(target.name, outcome.verdict)
                logger.debug("case {} seed {} on {}: {} {}", index, seed, target.name, outcome.verdict.value, outcome.detail)
                if outcome.verdict.is_finding and findings_dir is not None:
                    case.result = outcome.to_json()
                    path = save_case(case, findings_dir)
                    summary.findings.append(path)
                    logger.info("finding {} on {}: {}", outcome.verdict.value, target.name, path)
            index += 1
            summary.graphs = index
            bar.update(1)
            found = sum(sum(c[v.value] for v in Verdict if v.is_finding) for c in summary.verdicts.values())
            bar.set_postfix(findings=found)
    finally:
        bar.close()
        summary.seconds = time.monotonic() - start
    return summary
