"""Every model type transformers registers, tried: built small, run in eager in bf16, forward and a training step's backward.

Each type is tried in a worker process of its own batch (transformers loads once per worker); a type that
hangs past its time or kills its worker is recorded so and the worker replaced. The result is one row
per type: built, or the reason it is not, with what it is (class, modality, inputs, parameters), for
`catalog` to save and `numfuzz models --list` to show.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

TRY_SECONDS = 120.0  # a type still building or running past this is recorded as too slow


def model_types() -> list[str]:
    """Every model type transformers registers a configuration for, by name."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return sorted(CONFIG_MAPPING_NAMES)


def try_type(model_type: str, positions: int = 16) -> dict[str, Any]:
    """One type's row: built and run in eager (bf16 forward, bf16 training step's backward), or why not."""
    import torch

    from numfuzz.model.hf_zoo import ZooBuildError, line
    from numfuzz.model.hf_zoo.build import build
    from numfuzz.model.hf_zoo.plain import uses_context_vars

    started = time.monotonic()
    row: dict[str, Any] = {"type": model_type}
    try:
        built = build(model_type, positions)
    except ZooBuildError as exc:
        return {**row, "built": False, "reason": str(exc), "seconds": round(time.monotonic() - started, 2)}
    except Exception as exc:  # transformers' own failure outside the build's steps: the reason all the same
        return {**row, "built": False, "reason": f"building fails: {line(exc)}", "seconds": round(time.monotonic() - started, 2)}
    row.update(
        built=True, class_name=built.class_name, modality=built.modality, inputs=list(built.input_names), shapes=[list(t.shape) for t in built.inputs],
        labelled=built.labelled, parameters=built.parameters, sizes=built.sizes, notes=built.notes,
    )  # fmt: skip
    model = built.model.to(torch.bfloat16)
    inputs = [t.to(torch.bfloat16) if t.is_floating_point() else t for t in built.inputs]
    try:
        row["context_vars"] = uses_context_vars(model, inputs)
        model.model.train(False)
        model.labelled = built.labelled
        out = model(*inputs)
        loss = out.float() if built.labelled else sum(t.float().pow(2).mean() for t in out)
        loss.backward()
    except Exception as exc:  # eager fails in bf16: the table says so
        return {**row, "built": False, "reason": f"eager fails in bf16: {line(exc)}", "seconds": round(time.monotonic() - started, 2)}
    return {**row, "seconds": round(time.monotonic() - started, 2)}


def _serve(conn: Connection, positions: int) -> None:
    import warnings

    warnings.filterwarnings("ignore")
    import transformers

    transformers.logging.set_verbosity_error()
    while (model_type := conn.recv()) is not None:
        conn.send(try_type(model_type, positions))


def survey(types: list[str], positions: int = 16, seconds: float = TRY_SECONDS) -> Iterator[dict[str, Any]]:
    """Each type's row, in order, tried one at a time in a worker process (replaced where a type kills it or runs past `seconds`)."""
    context = multiprocessing.get_context("spawn")
    worker, conn = None, None
    for model_type in types:
        if worker is None or not worker.is_alive():
            conn, theirs = context.Pipe()
            worker = context.Process(target=_serve, args=(theirs, positions), daemon=True)
            worker.start()
            theirs.close()
        conn.send(model_type)
        started = time.monotonic()
        answered = conn.poll(seconds + 60)  # the first type of a worker waits for transformers to load too
        if answered:
            try:
                yield conn.recv()
                continue
            except EOFError:  # the worker died
                pass
        worker.kill()
        worker.join(5)
        why = f"its process died (exit code {worker.exitcode})" if answered else f"past {seconds:g} s"
        yield {"type": model_type, "built": False, "reason": f"building or running it in eager: {why}", "seconds": round(time.monotonic() - started, 2)}
        worker = None
    if worker is not None and worker.is_alive():
        conn.send(None)
        worker.join(10)
