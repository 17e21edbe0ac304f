"""Where a case sits, and every random stream it draws from, derived in one place.

A campaign's case is addressed by the campaign's seed and its index; a guided child by its root's
seed and its mutations' seeds (its lineage); a case outside a campaign (a test, a benchmark) by a
seed of its own. Each draw has a stream of its own, so that adding a draw leaves the others as
they were. The salts are the ones campaigns have always used: a campaign draws the cases it drew.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Literal

# A campaign's cases come in blocks of this many consecutive indices that share their drawn size mode,
# compiler options, thread count and gradients, so that a batch (Inductor's 8, `runner.batch`) compiles them together.
COMPILE_BLOCK = 8

# Each stream's salt, XORed into the seed it draws from.
SECOND_SIZE = 0xD1_5A3E  # the second size's shape and marked dims (the case's own seed)
BLOCK_DRAWS = 0xB10C  # the size mode, options and thread count a block shares
SECOND_SAMPLES = 0x5EC0D  # the samples at the second size
GRADIENTS = 0x6AAD  # whether a block judges gradients; a case's upstream gradients
SEARCH = 0x5EA4C4  # the input search's draws


def _digest(text: str, byteorder: Literal["little", "big"] = "little") -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], byteorder)


def case_seed(campaign_seed: int, index: int) -> int:
    """The program seed of case `index` of a campaign: independent streams, stable across versions."""
    return _digest(f"numfuzz:{campaign_seed}:{index}")


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

    def stream(self, salt: int, of_block: bool = False) -> random.Random:
        """The stream of one draw: `salt` names it; `of_block`: from the seed the block shares, else from the case's own."""
        return random.Random((self.shared if of_block else self.own) ^ salt)

    def guide_stream(self) -> random.Random:
        """Guidance's draw for this index: fresh or a child, and of which parent (before its seed is known)."""
        return random.Random(_digest(f"guide:{self.campaign}:{self.index}", "big"))

    def traced(self, share: float) -> bool:
        """Whether the case is traced for compiler coverage: a draw of the root seed's own."""
        return share > 0.0 and _digest(f"compiler-lines:{self.seed}", "big") / 2.0**64 < share
