"""Error parity: a program eager raises on is one the target must refuse too.

Eager's checks are part of an op's contract: argmax of a bool mask raises, logcumsumexp of uint8 raises. A target
that computes such a program instead has lost the check (pytorch#185481, #197807: each triaged upstream as an error
checking bug), and its user gets values where eager would have told them the program is wrong. Only outputs are
asked: a target with a gradient eager lacks has more, not less. The target runs on the sample eager raised on; where
it raises too, or says it does not support the program, the case stays invalid.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from numfuzz.judge.compiled import CompiledProgram

ERROR_PARITY_DETAIL = "; the target returned outputs"  # how an unchecked finding's detail ends, after eager's error
# Eager's CPU kernel missing for a float dtype the op takes elsewhere (avg_pool3d in bf16): a compiler generating its own
# kernel computes it by design (pytorch#83321, closed as expected), unlike an op refusing integers or bools (#197807)
MISSING_FLOAT_KERNEL = re.compile(r"not implemented for '(Half|BFloat16|Float|Double|ComplexHalf|ComplexFloat|ComplexDouble)'")


def eager_raised_target_ran(program: CompiledProgram, sample: list[torch.Tensor], eager_error: str) -> str | None:
    """The finding's detail when the target computes `sample`, where eager raised `eager_error` (one line); None when
    the target raises too (it refuses the program as eager does, or crashes: a crash needs a program eager runs), and
    where eager only lacks a float kernel (MISSING_FLOAT_KERNEL)."""
    if MISSING_FLOAT_KERNEL.search(eager_error):
        return None
    try:
        program.run(sample)
    except Exception:
        return None
    return f"eager raised {eager_error}{ERROR_PARITY_DETAIL}"
