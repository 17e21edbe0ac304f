"""One cell of a model sweep judged: `numfuzz.check_model` on the whole model first, and only for a finding its modules,
its partings and the region where they part, saved as a case for `minimize` and `repro`.

Judging every module alone costs a compile each; a sweep pays that only where the whole model is a
finding or gives cause (`suspect`: its largest error exceeds eager's at an output the verdict does
not count against it). The cell's record (plain data, one line of the results file) says the verdict, the
cause, the known issue, the worst bits lost, where the two part (module, op, line), the case
saved, and the file that holds the whole explanation (`numfuzz model`'s text).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from numfuzz.sweep.grid import Cell

CELLS = "cells"  # the folder of the per-cell explanations, in a sweep's output folder
FINDINGS = "findings"  # the folder of the cases extracted


def _worst_bits(result: Any) -> float | str | None:
    """The most bits any judged output loses against eager ("inf": non-finite, as JSON spells it); None where nothing was judged."""
    from numfuzz.judge.facts import json_number
    from numfuzz.judge.oracle import bits_lost

    lost = [bits_lost(o) for o in result.outputs if o.verdict in ("less_accurate", "nonfinite", "nonfinite_class")]
    if not lost:
        return 0.0 if result.outputs else None
    return json_number(round(max(lost), 3))


SUSPECT_ABS = 1.5  # how many times eager's largest absolute error the compiled model's must exceed for its modules to be judged alone


def suspect(result: Any) -> bool:
    """Whether a cell's modules are judged alone: the whole model is a finding, or its largest absolute error at an output
    exceeds `SUSPECT_ABS` times eager's where the verdict does not count it (near-zero elements only, or a known issue): a
    module alone may still be worse (Llama with its RMSNorm upcast dropped: logits 2.3 times eager's largest error, no bit
    lost by the verdict). The largest ULP error alone is not cause: near-zero elements set it, and any two roundings move it
    (a tenth either way between eager and a correct compiler), while each module judged alone costs a compile."""
    return result.is_finding or any(o.target_max_abs > SUSPECT_ABS * o.eager_max_abs for o in result.outputs if o.verdict != "more_accurate")


def _where(result: Any) -> dict[str, Any]:
    parts = result.parts_at
    placed = result.region_check
    culprit = placed.result.culprit if placed is not None else None
    return {
        "module": parts.path if parts is not None else (placed.path if placed is not None else None),
        "op": culprit.op if culprit is not None else None,
        "line": placed.line if placed is not None else None,
    }


def _extract(result: Any, cell: Cell, out: Path) -> str | None:
    """The checked region, where it is a finding, saved under OUT/findings (as `numfuzz model --corpus` saves it)."""
    from numfuzz.corpus.store import save_case

    placed = result.region_check
    if placed is None or not placed.result.is_finding:
        return None
    return str(save_case(placed.case(cell.target, cell.model), out / FINDINGS).relative_to(out))


def judge_cell(cell: Cell, out: Path, samples: int = 2, seed: int = 0, device: str = "cpu") -> dict[str, Any]:
    """The cell's record; a model that cannot be built, or fails in eager or its capture, is `invalid` with the reason."""
    from numfuzz.judge.execute import one_line
    from numfuzz.model.check import check_model, judge_parts
    from numfuzz.model.spec import load_model

    started = time.monotonic()
    train = cell.mode == "train"
    record: dict[str, Any] = {**cell.to_json(), "key": cell.key}

    try:
        network, inputs, loss = load_model(cell.model, cell.dtype, seed, device, train, cell.positions or None)
        result = check_model(
            network, inputs, cell.target, samples=samples, seed=seed, device=device, modules=False, train=train, loss=loss, autocast=cell.autocast,
            partings=False, locate=False,
        )  # fmt: skip
        # where they part, and the region: only where the whole model gives cause by its values, and it is not judged again. A
        # crash is recorded with its message: its modules alone (`numfuzz model`) cost a compile each (Thunder's jit crashing on
        # Qwen2's forward: 130 s, every precision of every architecture alike)
        if suspect(result) and not train and (result.verdict.is_accuracy or not result.verdict.is_finding):
            result = judge_parts(result, network, inputs, cell.target, device, cell.autocast)
    except Exception as exc:  # the model itself fails (its building, eager, its capture), not the target
        return {**record, "verdict": "invalid", "finding": False, "detail": f"the model fails: {one_line(exc)}", "seconds": time.monotonic() - started}
    explained = out / CELLS / f"{cell.file_stem()}.txt"
    from numfuzz.corpus.store import write_atomic

    write_atomic(explained, f"{cell.key}\n\n{result.explain()}\n")
    record.update(
        verdict=result.verdict.value,
        finding=result.is_finding,
        cause=result.cause,
        known=result.known,
        detail=result.detail,
        bits_lost=_worst_bits(result),
        explain=str(explained.relative_to(out)),
        case=_extract(result, cell, out) if result.is_finding else None,
        unextracted="a training step's region is not extracted" if result.is_finding and train else (result.unextracted or None),
        seconds=round(time.monotonic() - started, 2),
        **_where(result),
    )
    return record
