"""Coverage guidance: cases that reached new compiler code become parents, and a share of new cases are their mutations.

A traced case (`numfuzz.campaign.reach`) that reached a compiler line or a kernel shape no earlier
case reached joins the pool. With `share` > 0, each new case is, at that chance, a child: a parent
drawn by energy, mutated once more (`numfuzz.program.mutate`; the child's lineage is the parent's
plus one seed). Energy follows AFL's schedule in spirit: a new parent starts high, a parent whose
child reached new code doubles (to a cap), one whose child did not decays, so exhausted parents
fade. Children are always traced, and run alone (their own compile is what they are judged by).

Every draw is seeded by the campaign's seed and the case's index, so a campaign is reproducible
from its journal; the pool is saved with it, so a resumed campaign steers as it left off (a case
in flight at the stop is drawn again, against the pool as it then is).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from numfuzz.address import CaseAddress

POOL_SIZE = 256
NEW_ENERGY, MAX_ENERGY, MIN_ENERGY = 8.0, 64.0, 0.05
DECAY = 0.8  # a child that reached nothing new


@dataclass
class Parent:
    seed: int  # the root graph's seed
    lineage: tuple[int, ...]  # one seed per mutation from the root
    energy: float = NEW_ENERGY
    children: int = 0
    found: int = 0  # children that reached new code

    @property
    def key(self) -> tuple[int, tuple[int, ...]]:
        return (self.seed, self.lineage)


class Guide:
    """The pool of parents and the draw of each new case: fresh (its own seed) or a parent's child."""

    def __init__(self, share: float, pool: list[Parent] | None = None):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"the guided share is a chance, between 0 and 1, not {share!r}")
        self.share = share
        self.pool: dict[tuple[int, tuple[int, ...]], Parent] = {p.key: p for p in pool or []}
        self.children = 0

    def draw(self, fresh: CaseAddress) -> CaseAddress:
        """The case at `fresh`'s index: `fresh` itself unless it is drawn as a child (a parent's seed and lineage, one mutation more)."""
        if not self.share or not self.pool:
            return fresh
        rng = fresh.guide_stream()
        if rng.random() >= self.share:
            return fresh
        parents = sorted(self.pool.values(), key=lambda p: p.key)
        parent = rng.choices(parents, [p.energy for p in parents])[0]
        parent.children += 1
        self.children += 1
        return replace(fresh, seed=parent.seed, lineage=parent.lineage + (rng.getrandbits(62),))

    def record(self, seed: int, lineage: tuple[int, ...], traced: bool, new_code: bool) -> None:
        """A case came back: a traced one that reached new code joins the pool; a child's parent gains or loses energy."""
        if lineage:
            parent = self.pool.get((seed, lineage[:-1]))
            if parent is not None:
                parent.found += new_code
                parent.energy = min(parent.energy * 2, MAX_ENERGY) if new_code else max(parent.energy * DECAY, MIN_ENERGY)
        if traced and new_code and (seed, lineage) not in self.pool:
            if len(self.pool) >= POOL_SIZE:  # the most exhausted parent makes room
                del self.pool[min(self.pool.values(), key=lambda p: (p.energy, p.key)).key]
            self.pool[(seed, lineage)] = Parent(seed, lineage)

    def rows(self) -> dict[str, object]:
        """Its `fuzzer_stats` lines (none when guidance is off)."""
        if not self.share:
            return {}
        return {"guided_share": self.share, "parents": len(self.pool), "children_this_run": self.children,
                "parents_fertile": sum(p.found > 0 for p in self.pool.values())}  # fmt: skip

    def to_json(self) -> list[dict]:
        return [
            {"seed": p.seed, "lineage": list(p.lineage), "energy": round(p.energy, 4), "children": p.children, "found": p.found} for p in self.pool.values()
        ]

    @staticmethod
    def parents_from_json(data: object) -> list[Parent]:
        if not isinstance(data, list):
            return []
        return [
            Parent(
                int(d["seed"]),
                tuple(int(s) for s in d.get("lineage", ())),
                float(d.get("energy", NEW_ENERGY)),
                int(d.get("children", 0)),
                int(d.get("found", 0)),
            )
            for d in data
        ]
