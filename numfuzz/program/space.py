"""The program space a generator draws from: sizes, ops, dtype mixing, seams. Torch-free, so it travels to workers as plain data.

`GenConfig()` is the generator's own space: ops, sizes and its own chances (another dtype for a partner, a strided
input, a 0-d partner, a 0-d value along a dim, an input viewing a larger tensor) at their defaults, every other share
off; `GenConfig.default()` is what `numfuzz fuzz` draws, every share at its default. Both take their numbers from the shares table (`numfuzz.share_table`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from numfuzz.program.ops import OPS
from numfuzz.share_table import defaults_of, share_default


@dataclass(frozen=True)
class GenConfig:
    min_nodes: int = 1
    max_nodes: int = 8
    max_rank: int = 4
    max_dim: int = 8
    mix_dtypes: float = share_default("mix_dtypes")  # chance that a new input takes another dtype than its partner
    ops: tuple[str, ...] = field(default_factory=lambda: tuple(OPS))
    # Chance that a graph seeks a seam (numfuzz.program.seams): its first input's last dim straddles
    # a vector width or block size (past max_dim), a reduction may consume a pointwise op it can
    # recompute, and every fourth sample repeats its first row at the end and its heads in its tails.
    seams: float = 0.0
    # Chance that a float input of rank >= 1 is laid out as a strided view (numfuzz.program.layout):
    # permuted, stepped with NaN in the gaps, or expanded with stride 0. Most inputs stay contiguous.
    layouts: float = share_default("layouts")
    zero_dim: float = share_default("zero_dim")  # chance that a new broadcast partner of its first argument's shape is 0-d instead
    zero_dim_ops: float = share_default("zero_dim_ops")  # chance that an op along a dim takes a 0-d value (dim 0 or -1)
    # Chance that a float input is a view into a larger tensor (numfuzz.program.layout.draw_view): at a storage offset,
    # its rows stepping over gaps, as select, indexing or as_strided of a bigger tensor makes.
    views: float = share_default("views")
    # Chance that a node's scalar attributes are passed as Python numbers at call time, each with a
    # second value for a second call (numfuzz.program.scalars); 0: every scalar is a literal.
    scalar_args: float = 0.0
    repeat: float = 0.0  # chance that an elementwise op takes its first argument twice (x - x, x * x)
    large: float = 0.0  # chance that a graph starts from a model-sized value (numfuzz.program.model_scale)
    blocks: float = 0.0  # chance that a graph starts from a real model's block (numfuzz.program.blocks)
    models: float = 0.0  # chance that a graph starts from a window of a real model's captured graph (numfuzz.program.zoo)
    autocast: float = 0.0  # chance that a graph (then in fp32) has a torch.autocast region (numfuzz.program.autocast)
    # Chance that an op's argument is left outside its domain (sqrt of a negative, acosh below 1): where the float64
    # reference is NaN the element is judged by class alone (judge.nonfinite_class), and how the NaN travels on.
    out_of_domain: float = 0.0
    # Chance that a graph's first input has a dim of size 0 (an empty batch, an empty KV cache): every value may be empty,
    # and what is judged is that the compiled program runs, with eager's shapes and dtypes, and agrees where a value is not.
    empty: float = 0.0
    # Chance that a graph is a float64 program, drawn from the ops the fine reference evaluates (numfuzz.program.fine):
    # the vectorised float64 paths, judged against a reference finer than float64.
    fp64: float = 0.0
    # Chance that a graph's first input has one dim of 9 to 67 (past max_dim), its others 1 or 2 (numfuzz.program.seams):
    # a vector loop's odd tail, such as 66 or 67, while the case stays small.
    odd_tail: float = 0.0
    # Chance that a graph is an integer program: an integer or bool first input, grown by the ops that take one (the op
    # databases' integer forms, `program.op_db`), its integer values judged exactly against eager's.
    integers: float = 0.0

    @classmethod
    def default(cls, **settings: Any) -> GenConfig:
        """The program space `numfuzz fuzz` draws from by default; `settings`: fields of other values (ops, sizes, a share)."""
        return cls(**{**defaults_of("gen"), **settings})

    def __post_init__(self) -> None:
        if not 1 <= self.min_nodes <= self.max_nodes:
            raise ValueError("need 1 <= min_nodes <= max_nodes")
        for name in defaults_of("gen"):  # every share of the table's that is the generator's
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} is a chance, between 0 and 1")
        unknown = set(self.ops) - set(OPS)
        if unknown:
            raise ValueError(f"unknown ops: {', '.join(sorted(unknown))}")
