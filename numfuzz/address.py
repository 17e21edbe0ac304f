"""Where a case sits, and every random stream it draws from, derived in one place.

A campaign's case is addressed by the campaign's seed and its index; a guided child by its root's
seed and its mutations' seeds (its lineage); a case outside a campaign (a test, a benchmark) by a
seed of its own; a stored case without one by its content. Each draw has a stream of its own, so
that adding a draw leaves the others as they were: a graph's draws are named (`GRAPH_DRAWS`), the
case's others are salted (below).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal

# A campaign's cases come in blocks of this many consecutive indices that share their drawn size mode,
# compiler options, thread count and gradients, so that a batch (Inductor's 8, `runner.batch`) compiles them together.
COMPILE_BLOCK = 8

# Each stream's salt, XORed into the seed it draws from.
SAMPLES = 0  # the samples at the first size (the case's own seed itself)
SECOND_SHAPE = 0xD1_5A3E  # the second size's shape and marked dims (the case's own seed)
SIZE_MODE = 0xB10C  # the size mode a block shares
COMPILER_OPTIONS = 0x0B7105  # the compiler options a block shares
THREADS = 0x7EAD5  # the thread count a block shares
SECOND_SAMPLES = 0x5EC0D  # the samples at the second size
GRADIENTS = 0x6AAD  # whether a block judges gradients
UPSTREAM_GRADIENTS = 0x6AAD_0B  # a case's upstream gradients
SEARCH = 0x5EA4C4  # the input search's draws

# A graph's draws (`program.generator`), each a stream named here: a new draw is a new name.
GRAPH_DRAWS = (
    # the graph's chances, each with what it draws when taken (a shape, a region)
    "large", "blocks", "models", "empty", "fp64", "odd_tail", "seams", "autocast", "integers",
    # what every graph draws: its dtype, its size, its values' shapes, its ops and their attributes,
    # which values an op takes (and a block's or a window's content), its inputs' recipes
    "dtype", "size", "shapes", "ops", "attrs", "structure", "recipes",
    # the chances per input, per operand and per node
    "mix_dtypes", "repeat", "zero_dim", "out_of_domain", "scalar_args", "layouts", "swaps",
    # added later, each a chance with what it draws when taken: a 0-d value for an op along a dim, an input as a view
    "zero_dim_ops", "views",
    # an integer input holding its dtype's lowest value (`values.LOWEST`)
    "lowest",
)  # fmt: skip


def _digest(text: str, byteorder: Literal["little", "big"] = "little") -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], byteorder)


def case_seed(campaign_seed: int, index: int) -> int:
    """The program seed of case `index` of a campaign: independent streams, stable across versions."""
    return _digest(f"numfuzz:{campaign_seed}:{index}")


class GraphStreams:
    """A graph's random streams, one per draw named in GRAPH_DRAWS, each derived from the graph's seed and its name;
    or one stream for every draw (`single`: Hypothesis passes its own, whose draws shrink)."""

    def __init__(self, seed: int | None = None, single: Any = None):
        if (seed is None) == (single is None):
            raise ValueError("a graph's streams come from a seed or from one stream, not both")
        self._seed, self._single = seed, single
        self._made: dict[str, random.Random] = {}

    def __call__(self, draw: str) -> random.Random:
        """The stream of `draw`, the same object at every call."""
        if draw not in GRAPH_DRAWS:
            raise KeyError(f"{draw!r} is no graph draw: name it in numfuzz.address.GRAPH_DRAWS")
        if self._single is not None:
            return self._single
        if draw not in self._made:
            self._made[draw] = random.Random(_digest(f"numfuzz-draw:{self._seed}:{draw}"))
        return self._made[draw]


@dataclass(frozen=True)
class CaseAddress:
    """A case's place: the seed its program is drawn from, its campaign and index (none outside a campaign),
    and a guided child's mutation seeds (`numfuzz.program.mutate`)."""

    seed: int
    index: int = 0
    campaign: int | None = None
    lineage: tuple[int, ...] = ()

    @classmethod
    def fresh(cls, campaign: int, index: int) -> CaseAddress:
        """Case `index` of the campaign, drawn afresh (not a child)."""
        return cls(case_seed(campaign, index), index, campaign)

    @classmethod
    def of_content(cls, content: str) -> CaseAddress:
        """The address of a case known by its content alone (`content`: its hash, or its graph and samples as text)."""
        return cls(_digest(f"numfuzz-content:{content}"))

    @classmethod
    def recorded(cls, provenance: dict[str, Any], content: str | Callable[[], str]) -> CaseAddress:
        """A stored case's address: its provenance's seed and lineage, or where it has none (a case made by hand,
        minimised or edited), its content's (`of_content`; `content` may be a function giving it, called only then:
        a case's hash reads all its samples)."""
        seed = provenance.get("seed")
        if not str(seed).isdigit():
            return cls.of_content(content if isinstance(content, str) else content())
        lineage = provenance.get("lineage") or {}
        return cls(int(seed), lineage=tuple(int(s) for s in lineage.get("seeds", ())))

    @property
    def own(self) -> int:
        """The seed of what is the case's own: its samples, its second size, its upstream gradients (a child's: its last mutation's)."""
        return self.lineage[-1] if self.lineage else self.seed

    @property
    def shared(self) -> int:
        """The seed of the draws a campaign's block of COMPILE_BLOCK cases shares; a child's, and a lone case's, are its own."""
        if self.campaign is None or self.lineage:
            return self.own
        return _digest(f"numfuzz-compile:{self.campaign}:{self.index // COMPILE_BLOCK}")

    def seed_of(self, salt: int, of_block: bool = False) -> int:
        """The seed of one draw: `salt` names it; `of_block`: from the seed the block shares, else from the case's own."""
        return (self.shared if of_block else self.own) ^ salt

    def stream(self, salt: int, of_block: bool = False) -> random.Random:
        """The stream of one draw (see `seed_of`)."""
        return random.Random(self.seed_of(salt, of_block))

    def graph_streams(self) -> GraphStreams:
        """The streams the root graph is drawn from, one per draw (a child's graph is its root's, mutated)."""
        return GraphStreams(self.seed)

    def mutation_streams(self) -> Iterator[random.Random]:
        """One stream per mutation of a guided child, root first."""
        return (random.Random(step) for step in self.lineage)

    def guide_stream(self) -> random.Random:
        """Guidance's draw for this index: fresh or a child, and of which parent (before its seed is known)."""
        return random.Random(_digest(f"guide:{self.campaign}:{self.index}", "big"))

    def traced(self, share: float) -> bool:
        """Whether the case is traced for compiler coverage: a draw of the root seed's own."""
        return share > 0.0 and _digest(f"compiler-lines:{self.seed}", "big") / 2.0**64 < share
