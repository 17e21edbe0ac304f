"""A campaign's memory in its corpus: which cases are done, so that a rerun resumes.

A campaign is its seed, shard, targets, samples, device and generator settings; its cases are
numbered by index, and shard K of N owns the indices i with i % N == K (disjoint streams, so
corpora from several machines merge by copying files). The journal records, per shard, the
frontier (every ordinal below it is done on every target) and the done targets above it, with
the counters that match exactly that done set. It is rewritten atomically; a SIGKILL at any
moment leaves the last good copy, and the cases in flight then simply run again. A lock file
keeps two processes off one journal.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from numfuzz.campaign.stats import CampaignStats
from numfuzz.corpus.store import write_atomic

JOURNAL_VERSION = 1
STALE_TEMP_S = 60.0  # temporary files older than this belong to a killed run


class JournalError(RuntimeError):
    """A journal that cannot be used; the message is one line for the user."""


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' with 0 <= K < N."""
    k, sep, n = text.partition("/")
    try:
        shard, count = int(k), int(n)
    except ValueError:
        raise ValueError(f"bad shard {text!r}: expected K/N, such as 0/4") from None
    if not sep or count < 1 or not 0 <= shard < count:
        raise ValueError(f"bad shard {text!r}: need 0 <= K < N")
    return shard, count


def shard_index(shard: tuple[int, int], ordinal: int) -> int:
    """The campaign index of this shard's `ordinal`-th case."""
    return shard[0] + shard[1] * ordinal


@dataclass
class Journal:
    identity: dict[str, Any]
    targets: list[str]
    directory: Path | None = None  # None: an in-memory journal (no corpus), nothing persists
    frontier: int = 0
    partial: dict[int, set[str]] = field(default_factory=dict)  # ordinal -> targets done, above the frontier
    minimize_keys: set[str] = field(default_factory=set)  # dedupe keys already sent to the minimiser
    minimize_queue: list[dict[str, Any]] = field(default_factory=list)  # findings waiting for it
    stats: CampaignStats = field(default_factory=CampaignStats)
    guide_pool: list = field(default_factory=list)  # a guided campaign's parents (`numfuzz.campaign.guidance`), as JSON
    runs: int = 0
    _lock: int | None = None

    @property
    def name(self) -> str:
        digest = hashlib.sha256(json.dumps(self.identity, sort_keys=True).encode()).hexdigest()[:10]
        k, n = self.identity["shard"].split("/")
        return f"seed{self.identity['seed']}-shard{k}of{n}-{digest}"

    @property
    def path(self) -> Path | None:
        return self.directory / "state.json" if self.directory else None

    @property
    def lines_path(self) -> Path | None:
        """The compiler lines the campaign reached (`campaign.reach`), beside the state."""
        return self.directory / "compiler_lines.json" if self.directory else None

    @staticmethod
    def open(corpus: Path | None, identity: dict[str, Any], targets: list[str]) -> Journal:
        """The campaign's journal under `corpus/campaign/`, locked, or a fresh in-memory one."""
        journal = Journal(identity, list(targets))
        if corpus is None:
            return journal
        journal.directory = Path(corpus) / "campaign" / journal.name
        journal.directory.mkdir(parents=True, exist_ok=True)
        journal._take_lock()
        _remove_stale_temps([Path(corpus) / "findings", Path(corpus) / "minimized", Path(corpus) / "errors", journal.directory])
        if journal.path.exists():
            journal._load()
        journal.runs += 1
        return journal

    def _take_lock(self) -> None:
        fd = os.open(self.directory / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalError(f"another numfuzz is running this campaign on {self.directory}") from None
        self._lock = fd

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text())
            if data.get("version") != JOURNAL_VERSION:
                raise JournalError(f"{self.path}: journal version {data.get('version')} is not {JOURNAL_VERSION}")
            self.frontier = int(data["frontier"])
            self.partial = {int(k): set(v) for k, v in data["partial"].items()}
            self.minimize_keys = set(data.get("minimize_keys", []))
            self.minimize_queue = list(data.get("minimize_queue", []))
            self.stats = CampaignStats.from_json(data["stats"])
            if self.lines_path.is_file():
                self.stats.reach.restore_lines(json.loads(self.lines_path.read_text()))
            else:  # a journal from before the lines had their file kept them in the state: the next save moves them
                self.stats.reach.lines_unsaved = bool(self.stats.reach.lines)
            self.guide_pool = list(data.get("guide", []))
            self.runs = int(data.get("runs", 0))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise JournalError(f"{self.path}: unreadable journal ({type(exc).__name__}: {exc}); move it away to start afresh") from None

    def save(self) -> None:
        if self.path is None:
            return
        body = {
            "version": JOURNAL_VERSION,
            "campaign": self.identity,
            "runs": self.runs,
            "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "frontier": self.frontier,
            "graphs_done": self.graphs_done,
            "partial": {str(k): sorted(v) for k, v in sorted(self.partial.items())},
            "minimize_keys": sorted(self.minimize_keys),
            "minimize_queue": self.minimize_queue,
            "stats": self.stats.to_json(with_lines=False),
            **({"guide": self.guide_pool} if self.guide_pool else {}),
        }
        reach = self.stats.reach
        if reach.lines_unsaved:  # tens of thousands of numbers: written when they change, not every checkpoint
            write_atomic(self.lines_path, json.dumps(reach.lines_json(), separators=(",", ":")) + "\n")
            reach.lines_unsaved = False
        write_atomic(self.path, json.dumps(body, indent=1) + "\n")

    def close(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # closing the descriptor drops the lock
            self._lock = None

    # --- the done set --------------------------------------------------------------------------

    def is_done(self, ordinal: int, target: str) -> bool:
        return ordinal < self.frontier or target in self.partial.get(ordinal, ())

    def mark_done(self, ordinal: int, target: str) -> bool:
        """Record one case; True when it completed its graph (every target done)."""
        if self.is_done(ordinal, target):
            return False
        done = self.partial.setdefault(ordinal, set())
        done.add(target)
        complete = done >= set(self.targets)
        while self.partial.get(self.frontier, set()) >= set(self.targets):
            del self.partial[self.frontier]
            self.frontier += 1
        return complete

    @property
    def graphs_done(self) -> int:
        full = set(self.targets)
        return self.frontier + sum(1 for done in self.partial.values() if done >= full)

    def pending(self, graphs: int | None) -> Iterator[tuple[int, str]]:
        """(ordinal, target) pairs not yet done, in order; ordinals stop at `graphs` when given."""
        ordinal = self.frontier
        while graphs is None or ordinal < graphs:
            for target in self.targets:
                if not self.is_done(ordinal, target):
                    yield ordinal, target
            ordinal += 1

    def header(self) -> dict[str, Any]:
        """The campaign's identity as fuzzer_stats lines."""
        return {
            "campaign": self.name,
            "seed": self.identity["seed"],
            "shard": self.identity["shard"],
            "targets": " ".join(self.identity["targets"]),
            "samples_per_graph": self.identity["samples"],
            "device": self.identity["device"],
            "runs": self.runs,
            "graphs_done": self.graphs_done,
            "frontier": self.frontier,
        }


def _remove_stale_temps(directories: list[Path]) -> None:
    """write_atomic's leftovers from a killed run: never a case, always safe to drop."""
    now = time.time()
    for directory in directories:
        for tmp in directory.glob(".*.tmp") if directory.is_dir() else ():
            try:
                if now - tmp.stat().st_mtime > STALE_TEMP_S:
                    tmp.unlink()
            except OSError:
                pass
