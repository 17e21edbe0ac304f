"""The plain data a report is made of: no torch, no matplotlib, so that pages render (and test) anywhere."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from numfuzz.judge.verdicts import ACCURACY_SYMPTOMS, severity_text


@dataclass
class SweepPoint:
    """One scaled copy of the worst sample: every input multiplied by 2**exponent, rounded to its dtype."""

    exponent: float  # whole numbers: an exact copy of the case, scaled; others: between octaves
    input_magnitude: float  # the largest |x| over the scaled sample's inputs
    reference: float  # float64 reference of the flagged element
    eager_ulp: float  # inf where the result is non-finite
    target_ulp: float

    @property
    def exact(self) -> bool:
        return float(self.exponent).is_integer()

    def to_json(self) -> dict:
        return {k: _finite_or_text(v) for k, v in vars(self).items()}


@dataclass
class Sweep:
    """Errors of one output element over input scales, from one compile of the target."""

    output: int
    dtype: str
    sample: int  # the sample with the worst element, which was scaled
    element: int  # flat index of that element within the output
    points: list[SweepPoint] = field(default_factory=list)
    skipped: int = 0  # scales left out: overflow, a non-finite reference, or a run that raised

    def to_json(self) -> dict:
        return {
            "output": self.output,
            "dtype": self.dtype,
            "sample": self.sample,
            "element": self.element,
            "skipped": self.skipped,
            "points": [p.to_json() for p in self.points],
        }


@dataclass
class ErrorRow:
    """One line of the error table: eager or the target on one output, over all samples."""

    output: int
    dtype: str
    who: str  # "eager" or "target"
    max_ulp: float
    mean_ulp: float
    max_abs: float
    max_rel: float
    worse_better: str = ""  # on the target's row only
    verdict: str = ""


@dataclass
class Known:
    """A known issue a group matches, as the corpus marks it."""

    id: str
    title: str
    link: str
    status: str


@dataclass
class Link:
    """A file the report links to, relative to the page."""

    href: str
    label: str


@dataclass
class GroupView:
    """One finding group: its signature, smallest case, cause, errors, sweep and repro files."""

    anchor: str
    signature: str
    target: str
    symptom: str
    count: int
    severity: float | None  # bits lost; inf for non-finite
    case: Link | None = None
    known: Known | None = None
    cause: str | None = None
    evidence: list[str] = field(default_factory=list)
    title: str = ""  # the group's name as `numfuzz corpus` lists it (folded dtypes, a mechanism, a known issue)
    rounding_error: str = ""  # the culprit's rounding error against its documented bound, one line
    program: str = ""
    inputs: list[str] = field(default_factory=list)  # a short description per input
    errors: list[ErrorRow] = field(default_factory=list)
    detail: str = ""  # the recorded outcome's detail (crashes: the exception)
    traceback: str = ""  # crashes: the tail of the worker's log or traceback
    sweep: Sweep | None = None
    plot_svg: str | None = None
    plot_note: str | None = None  # why there is no plot
    repro: list[Link] = field(default_factory=list)
    repro_note: str | None = None
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def is_crash(self) -> bool:
        return self.symptom.split(":", 1)[0] not in ACCURACY_SYMPTOMS

    @property
    def severity_text(self) -> str:
        return severity_text(self.severity, self.symptom.split(":", 1)[0])


@dataclass
class RunRate:
    """Graphs per minute over one run of one campaign, from its log."""

    label: str
    minutes: list[float]  # bin centres, minutes since the run started
    graphs_per_min: list[float]


@dataclass
class CampaignView:
    """One campaign folder (one seed and shard): identity, counters, coverage and throughput."""

    name: str
    seed: str = ""
    shard: str = ""
    targets: list[str] = field(default_factory=list)
    device: str = ""
    samples: str = ""
    runs: int = 0
    graphs_done: int = 0
    cases: int = 0
    findings: int = 0
    errors: int = 0
    graphs_per_min: str = ""  # of the last run, as fuzzer_stats has it
    total_time_s: float = 0.0
    restarts: int = 0
    verdicts: dict[str, dict[str, int]] = field(default_factory=dict)  # target -> verdict -> cases
    coverage: dict[str, dict[str, int]] = field(default_factory=dict)  # target -> op -> cases
    rates: list[RunRate] = field(default_factory=list)
    # compiler lines reached (traced cases): (graphs, seconds, lines, kernel shapes) points, and lines first reached per op
    reach_trend: list[tuple[int, float, int, int]] = field(default_factory=list)
    reach_by_op: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # files of this campaign that could not be read


@dataclass
class ErrorFile:
    """A numfuzz failure saved under errors/: the file and the last line of its traceback."""

    case: Link
    summary: str


@dataclass
class ReportData:
    corpus: str
    generated: str
    numfuzz_version: str
    device: str = ""
    campaigns: list[CampaignView] = field(default_factory=list)
    groups: list[GroupView] = field(default_factory=list)  # new first, then known
    versions: list[dict[str, str]] = field(default_factory=list)  # distinct version sets of the cases shown
    skipped: list[str] = field(default_factory=list)  # unreadable files, one line each
    numfuzz_errors: list[ErrorFile] = field(default_factory=list)
    coverage_svg: str | None = None
    coverage_note: str | None = None
    rate_svg: str | None = None
    rate_note: str | None = None
    reach_svg: str | None = None
    notes: list[str] = field(default_factory=list)  # report-wide remarks (no target, --no-sweep)

    @property
    def findings(self) -> list[GroupView]:
        return [g for g in self.groups if not g.is_crash]

    @property
    def crashes(self) -> list[GroupView]:
        return [g for g in self.groups if g.is_crash]

    @property
    def targets(self) -> list[str]:
        found = [t for c in self.campaigns for t in c.targets] + [g.target for g in self.groups]
        return list(dict.fromkeys(found))


def _finite_or_text(value: object) -> object:
    """JSON has no inf/nan: write them as strings that JavaScript's Number() and Python's float() read."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value
