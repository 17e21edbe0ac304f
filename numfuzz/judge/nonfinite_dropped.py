"""Why a target loses a non-finite class (`judge.nonfinite_class`) at the culprit op: the cause `nonfinite_dropped`.

Its test holds where the culprit's own verdict is `nonfinite_class`: the op applied in float64 to the target's own
inputs gives NaN or inf where eager's value (and the op on eager's inputs) agrees, and the target's value is finite
or of another class. The evidence says what the target gave instead, and whether the op was given a NaN or inf in
those samples (the compiled op drops one it was given: a maximum that ignores a NaN, `x * 0` folded to 0) or only
finite or empty inputs (the op makes the NaN itself, an empty reduction's 0/0 or a value outside its domain, and the
compiled op does not). No compile: the values the probe or the cut saw, and float64.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch

from numfuzz.judge.cause import NONFINITE_DROPPED, Diagnosis
from numfuzz.judge.evidence import Evidence, op_line
from numfuzz.judge.nonfinite_class import class_changes, class_lost, kinds_text
from numfuzz.judge.verdicts import Verdict


def nonfinite_dropped(ev: Evidence) -> Diagnosis | None:
    """The cause at a culprit whose own verdict is `nonfinite_class`, with what it lost and whether it was given a NaN or inf."""
    c = ev.culprit
    if c is None or c.verdict != Verdict.NONFINITE_CLASS.value:
        return None
    inputs, values = ev.side("target")
    _, eager = ev.side("eager")
    changes: Counter[str] = Counter()
    given = made = 0
    for row, got, kept, ref, e_ref in zip(inputs, values, eager, ev.reference_of("target"), ev.reference_of("eager")):
        t = _flat(got)
        lost = class_lost(ref, _flat(kept), t, e_ref)
        if not lost.any():
            continue
        changes.update(class_changes(ref[lost], t[lost]))
        if any(a.is_floating_point() and not bool(torch.isfinite(a).all()) for a in row):
            given += 1
        else:
            made += 1
    line = f"`{op_line(ev.graph, c.node)}`"
    where = f"the program from {line} on, compiled from eager's values before it," if ev.suffix is not None else line
    evidence = [f"{where} loses the non-finite class that the op on the target's own inputs gives, as eager does: {kinds_text(changes) or 'at its value'}"]
    if given:
        evidence.append(f"in {given} sample(s) the op was given NaN or inf: the compiled code drops a non-finite value it was given")
    if made:
        evidence.append(
            f"in {made} sample(s) its inputs are finite or empty: the op makes the NaN or inf itself (an empty reduction's 0/0, "
            "a value outside its domain), the compiled code does not"
        )
    return Diagnosis(NONFINITE_DROPPED.name, evidence, c.node, c.op, c.dtype)


def _flat(x: torch.Tensor) -> np.ndarray:
    return x.detach().to("cpu", torch.float64).reshape(-1).numpy()
