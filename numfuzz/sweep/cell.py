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


def _worst_output(result: Any) -> str | None:
    """What the output that loses the most bits is: "loss", "gradient", "output" (a training step's parameter names vary by model)."""
    from numfuzz.judge.oracle import bits_lost

    lost = [o for o in result.outputs if o.verdict in ("less_accurate", "nonfinite")]
    if not lost:
        return None
    label = result.label(max(lost, key=bits_lost).index)
    return "loss" if label == "loss" else "gradient" if label.startswith("the gradient") else "output"


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
    facts = placed.result.analysis if placed is not None else None
    return {
        "module": parts.path if parts is not None else (placed.path if placed is not None else None),
        "op": culprit.op if culprit is not None else None,
        "op_cause": (facts.cause or None) if facts is not None and culprit is not None else None,  # the cause at the op, inside the region
        "line": placed.line if placed is not None else None,
    }


def _extract(result: Any, cell: Cell, out: Path) -> str | None:
    """The checked region, where it is a finding, saved under OUT/findings (as `numfuzz model --corpus` saves it)."""
    from numfuzz.corpus.store import save_case

    placed = result.region_check
    if placed is None or not placed.result.is_finding:
        return None
    return str(save_case(placed.case(cell.target, cell.model), out / FINDINGS).relative_to(out))


def known_kind(issue: str) -> str:
    """A known issue's kind ("limitation": a feature the release lacks; else "bug"), "" for none."""
    if not issue:
        return ""
    from numfuzz.corpus.known import load_known

    found = next((i for i in load_known() if i.id == issue), None)
    return (found.kind or "bug") if found is not None else ""


def _how_to_judge_alone(cell: Cell, record: dict[str, Any], samples: int) -> str:
    """The command that judges this cell's modules alone and its partings (a sweep judges them only where the whole model gives cause)."""
    options = [f"--target {cell.target}", f"--dtype {cell.dtype}", f"--samples {samples}"]
    options += [f"--autocast {cell.autocast}"] if cell.autocast else []
    options += ["--train"] if cell.mode == "train" else []
    options += [f"--positions {cell.positions}"] if cell.positions else []
    from numfuzz.model.hf_zoo.plain import WAY_SHIPPED, way_words

    way = f" (Thunder's jit is given the model {way_words(record['way'])}, as here)" if record.get("way") not in (None, WAY_SHIPPED) else ""
    return f"modules alone and where the two part: numfuzz model {cell.model} {' '.join(options)}{way}"


def judge_cell(cell: Cell, out: Path, samples: int = 2, seed: int = 0, device: str = "cpu") -> dict[str, Any]:
    """The cell's record; a model that cannot be built, or fails in eager or its capture, is `invalid` with the reason. Thunder's
    jit is given a transformers model with its context variables inert where it sets them (`numfuzz.model.hf_zoo.plain`), and
    the record's `way` says which: the whole cell runs so (eager, the reference and the target alike)."""
    import torch

    from numfuzz.judge.execute import one_line
    from numfuzz.model.hf_zoo.plain import WAY_SHIPPED, run_way
    from numfuzz.model.spec import load_model

    # grad mode on, as in a fresh process: a target may leave it off (Thunder's jit after a cache hit,
    # docs/issues/thunder_grad_mode_after_cache_hit_is_the_entry_mode.py), and the worker's next training steps then fail
    torch.set_grad_enabled(True)
    started = time.monotonic()
    train = cell.mode == "train"
    record: dict[str, Any] = {**cell.to_json(), "key": cell.key, "way": WAY_SHIPPED}
    try:
        network, inputs, loss = load_model(cell.model, cell.dtype, seed, device, train, cell.positions or None)
        record["way"], context = run_way(cell.target, network, inputs)
        with context:
            result = _judge(cell, network, inputs, loss, samples, seed, device)
    except Exception as exc:  # the model itself fails (its building, eager, its capture), not the target
        return {**record, "verdict": "invalid", "finding": False, "detail": f"the model fails: {one_line(exc)}", "seconds": time.monotonic() - started}
    return _recorded(record, result, cell, out, started, samples)


def _judge(cell: Cell, network: Any, inputs: tuple, loss: Any, samples: int, seed: int, device: str) -> Any:
    from numfuzz.model.check import check_model, judge_parts

    train = cell.mode == "train"
    result = check_model(
        network, inputs, cell.target, samples=samples, seed=seed, device=device, modules=False, train=train, loss=loss, autocast=cell.autocast,
        partings=False, locate=False,
    )  # fmt: skip
    # where they part, and the region: only where the whole model gives cause by its values, and it is not judged again. A
    # crash is recorded with its message: its modules alone (`numfuzz model`) cost a compile each (Thunder's jit crashing on
    # Qwen2's forward: 130 s, every precision of every architecture alike)
    if suspect(result) and not train and (result.verdict.is_accuracy or not result.verdict.is_finding):
        result = judge_parts(result, network, inputs, cell.target, device, cell.autocast)
    return result


def _recorded(record: dict[str, Any], result: Any, cell: Cell, out: Path, started: float, samples: int) -> dict[str, Any]:
    train = cell.mode == "train"
    explained = out / CELLS / f"{cell.file_stem()}.txt"
    from numfuzz.corpus.store import write_atomic

    write_atomic(explained, f"{cell.key}\n\n{result.explain()}\n\n{_how_to_judge_alone(cell, record, samples)}\n")
    record.update(
        verdict=result.verdict.value,
        finding=result.is_finding,
        cause=result.cause,
        known=result.known,
        known_kind=known_kind(result.known),
        detail=result.detail,
        bits_lost=_worst_bits(result),
        worst=_worst_output(result),
        explain=str(explained.relative_to(out)),
        case=_extract(result, cell, out) if result.is_finding else None,
        unextracted="a training step's region is not extracted" if result.is_finding and train else (result.unextracted or None),
        seconds=round(time.monotonic() - started, 2),
        **_where(result),
    )
    return record
