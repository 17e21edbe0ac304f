"""The repro script's metadata check: `numfuzz.judge.metadata` copied into the script, and the assertions that run it.

The script calls eager and the compiled program on the first sample's same tensors (aliasing is judged against them)
and fails while an output is laid out unlike eager's; at a second size or second scalars, on that call's runs.
"""

from __future__ import annotations

import inspect

from numfuzz.corpus.case import Case
from numfuzz.judge import metadata
from numfuzz.judge.output_words import output_names
from numfuzz.targets import Target


def metadata_source(case: Case, target: Target) -> str:
    """The metadata check (`numfuzz.judge.metadata`) as the script runs it, with the outputs' names and whether the target keeps strides."""
    functions = (
        metadata.metadata_differences,
        metadata._layout_difference,
        metadata._dense,
        metadata._shared_differences,
        metadata._sized_strides,
        metadata._views_flat,
        metadata._has_memory,
        metadata._same_memory,
        metadata._source,
        metadata._alias_text,
    )
    head = [
        "from typing import Sequence  # noqa: E402",
        "",
        f"NAMES = {output_names(case.graph)!r}  # each output, by the op that makes it",
        f"STRIDES = {metadata.keeps_output_strides(target)!r}  # whether the target promises eager's strides (numfuzz/judge/metadata.py)",
        "",
        "",
        "def as_tuple(result):\n    return tuple(result) if isinstance(result, (tuple, list)) else (result,)",
    ]
    return "\n".join(head) + "\n\n\n" + "\n\n".join(inspect.getsource(f).strip() + "\n" for f in functions)


# The metadata check on the first sample, eager and the compiled program called with the same tensors (aliasing is
# judged against them); with gradients each side runs on copies of its own, so aliasing with inputs is not judged.
METADATA_ASSERTION = """with torch.no_grad():
    first = [x.to(DEVICE) for x in samples[0]]
    differs = metadata_differences(NAMES, as_tuple(fn(*lay_out(first), *SCALARS)), as_tuple(compiled(*lay_out(first), *SCALARS)), first, STRIDES)
assert not differs, f"the compiled outputs are laid out unlike eager's: {'; '.join(differs)}"
"""
GRAD_METADATA_ASSERTION = """differs = metadata_differences(NAMES, eager[0], got[0], None, STRIDES)
assert not differs, f"the compiled outputs are laid out unlike eager's: {'; '.join(differs)}"
"""
