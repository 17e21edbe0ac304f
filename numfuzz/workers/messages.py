"""What the campaign and a worker process say to each other over their pipe: one small dataclass per kind.

A worker unpickles these before it imports torch, so they hold plain data only: a case and an
outcome travel as their JSON dicts (`Case.to_json`, `Outcome.to_json`), typed here as `dict`.
Requests go to the worker (case, batch, evaluate, minimize, cancel, stop); replies come back
(ready or failed once at start, then one reply per request, and progress while a minimisation runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from numfuzz.address import CaseAddress

# --- requests: campaign -> worker -------------------------------------------------------------


@dataclass(frozen=True)
class CaseRequest:
    """Generate the case at `address` and judge it on `target` (a guided child, with a lineage, is always traced)."""

    target: str
    address: CaseAddress


@dataclass(frozen=True)
class BatchRequest:
    """Generate these cases and judge them on `target` compiled together (`numfuzz.runner.batch`)."""

    target: str
    items: tuple[CaseAddress, ...]


@dataclass(frozen=True)
class EvaluateRequest:
    """Run this given case on `target` (an isolated runner's one call)."""

    index: int  # the runner's own count of cases
    target: str
    case: dict[str, Any]  # Case.to_json()


@dataclass(frozen=True)
class MinimizeRequest:
    """Shrink this saved finding on `target`; progress messages while it runs, a `Minimized` reply at the end."""

    target: str
    case: dict[str, Any]  # the finding (or its smallest case so far), Case.to_json()
    finding: str  # the finding's file stem
    key: str  # its dedupe key
    timeout: float  # seconds the campaign waits before it asks for the smallest case so far
    budget: float | None = None  # the minimiser's own time budget (default: `timeout`)
    clock: dict[str, Any] | None = None  # CandidateClock.to_json(): how long this target's runs take


@dataclass(frozen=True)
class Cancel:
    """Stop the task in hand early and reply with what there is (a minimisation's smallest case so far)."""


@dataclass(frozen=True)
class Stop:
    """Exit once idle."""


Request = Union[CaseRequest, BatchRequest, EvaluateRequest, MinimizeRequest, Cancel, Stop]

# --- replies: worker -> campaign --------------------------------------------------------------


@dataclass(frozen=True)
class TargetInfo:
    """What the worker learnt of a target by resolving it, for the campaign to plan with."""

    batch_default: int = 1  # cases compiled together by default (`Target.batch_default`)
    # the fewest output elements that keep a finding's code path, per program dtype on the worker's
    # device (`Target.min_elements`); empty where the target does not say
    min_elements: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Ready:
    """The worker is up: settings applied, user code imported, targets resolved and warm."""

    pid: int
    startup_s: float  # seconds from the process start to this message
    rss: int | None  # bytes
    targets: dict[str, TargetInfo] = field(default_factory=dict)  # target spec -> what resolving it told


@dataclass(frozen=True)
class Failed:
    """The worker could not start; it exits after this."""

    error: str  # the traceback


@dataclass
class CaseResult:
    """A case judged: its outcome, and what it cost. Also one case of a batch."""

    index: int
    target: str
    outcome: dict[str, Any]  # Outcome.to_json()
    case: dict[str, Any] | None = None  # the case, when its verdict is a finding
    ops: list[str] = field(default_factory=list)  # the ops of its graph, sorted
    samples: int = 0  # input samples it ran
    wall: float = 0.0  # seconds, this case's share of a batch's
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds per phase (`numfuzz.campaign.stats.CPU_PHASES`)
    batched: int | None = None  # judged in a batch compiled together: how many cases it held
    rss: int | None = None  # bytes after the case (not set for a case judged in a batch)
    peak_rss: int | None = None
    recycle: bool = False  # the worker leaves after this reply (its memory grew too far)
    reach: dict[str, Any] | None = None  # a traced case: compiler lines new to this worker and kernel shapes (`workers.compiler_reach`)
    kinds: list[str] = field(default_factory=list)  # what it was drawn as (`Case.kinds`): counted in fuzzer_stats


@dataclass
class ErrorReply:
    """numfuzz itself failed on a case (or on an evaluation): the traceback, and what is known of the case."""

    index: int
    target: str
    error: str  # the traceback
    case: dict[str, Any] | None = None  # the case, if it was made
    ops: list[str] = field(default_factory=list)
    samples: int = 0
    wall: float | None = None  # None for an evaluation
    cpu: dict[str, float] = field(default_factory=dict)
    rss: int | None = None
    peak_rss: int | None = None
    recycle: bool = False


@dataclass(frozen=True)
class BatchReply:
    """One reply per case of a batch, in its order; a case the batch could not judge ran alone."""

    target: str
    replies: list[CaseResult | ErrorReply]
    rss: int | None
    recycle: bool


@dataclass(frozen=True)
class Evaluated:
    """A given case's outcome (`EvaluateRequest`)."""

    index: int
    outcome: dict[str, Any]  # Outcome.to_json()
    rss: int | None = None
    recycle: bool = False


@dataclass
class Minimized:
    """How a minimisation ended. Also made by the campaign for one whose worker died."""

    finding: str
    key: str = ""
    case: dict[str, Any] | None = None  # the smallest case, Case.to_json(), when it still shows the finding
    summary: str = ""  # one line for the log
    exhausted: bool = False  # stopped by its budget or a cancel before it was done
    cancelled: bool = False  # the campaign asked it to stop
    seconds: float = 0.0
    error: str = ""  # the minimiser's own traceback, if it failed
    candidate_s: list[float] = field(default_factory=list)  # seconds of each isolated candidate run
    clock: dict[str, Any] | None = None  # the CandidateClock after the isolated runs, to keep with the finding
    rss: int | None = None
    recycle: bool = False


@dataclass(frozen=True)
class Progress:
    """How far a running minimisation got (at most about one a second); the task goes on."""

    finding: str
    stage: str  # "confirm", "shrink" or "confirm-hang"
    candidates: int = 0  # candidates judged so far
    nodes: int = 0  # ops in the smallest case so far
    from_nodes: int | None = None  # ops in the finding (None: not told)
    runs: int = 0  # compiles so far
    seconds: float = 0.0  # since the minimisation began; for confirm-hang, the time limit of the confirmation
    verdict: str = ""  # the last candidate's verdict
    kept: bool = False  # ... and whether it was kept


Reply = Union[CaseResult, ErrorReply, BatchReply, Evaluated, Minimized]  # what ends a task
Message = Union[Ready, Failed, Progress, Reply]  # everything a worker sends
