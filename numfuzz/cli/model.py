"""`numfuzz model`: a user's model, or a transformers architecture, judged compiled against its float64 reference."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from numfuzz.cli.failure import fail
from numfuzz.cli.options import device_option, import_option
from numfuzz.cli.setup import import_user_code


@click.command()
@click.argument("spec")
@click.option("--target", "target_spec", required=True, help="Target spec (inductor, thunderfx, thunder:torchcompile, or one --import registers).")
@click.option("--dtype", type=click.Choice(["bf16", "fp16", "fp32"]), default=None, help="Cast the model's parameters and float inputs to this dtype first.")
@click.option(
    "--autocast",
    type=click.Choice(["bf16", "fp16"]),
    default=None,
    help="Run the model under torch.autocast of this dtype (eager, the target, and the reference, which follows autocast's casts).",
)
@click.option("--samples", type=click.IntRange(min=1), default=4, show_default=True, help="Input samples: the example inputs, then ones drawn like them.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the drawn samples (and of an hf: model's weights).")
@click.option("--modules/--no-modules", default=True, show_default=True, help="Also judge each submodule alone, to say where the two part.")
@click.option(
    "--partings/--no-partings",
    default=True,
    show_default=True,
    help="Also list the ops where the compiled model first computes other bits than eager (one more compile, of the whole model).",
)
@click.option(
    "--train", is_flag=True, help="Judge a training step: the loss and the gradient of every parameter and float input (modules are not judged alone then)."
)
@click.option(
    "--corpus",
    "corpus_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Save the region where they part, as a numfuzz case, under DIR/findings (for replay, minimize, repro, corpus).",
)
@click.option("--positions", type=click.IntRange(min=1), default=None, help="Sequence length of an hf: model's token ids (or a FUNCTION's `positions`).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@device_option
@import_option
def model(
    spec: str,
    target_spec: str,
    dtype: str | None,
    autocast: str | None,
    samples: int,
    seed: int,
    modules: bool,
    partings: bool,
    train: bool,
    corpus_dir: Path | None,
    positions: int | None,
    as_json: bool,
    device: str | None,
    imports: tuple[str, ...],
) -> None:
    """Judge SPEC (FILE.py:FUNCTION returning (model, inputs), or hf:ARCH) compiled by --target against its float64
    reference, as written: every op exact, every cast the model makes rounding where it stands. Exit 1 when the
    compiled model, or a module of it compiled alone, is further from it than eager is and no known issue explains
    it; 0 when not; 2 on bad input, or where the model itself fails in eager or in its capture."""
    if train and corpus_dir is not None:
        fail("--corpus saves the region of a forward finding; a training step's is not extracted (leave out --train)")
    for path in imports:
        import_user_code(path)
    from numfuzz.environment import default_device
    from numfuzz.judge.execute import one_line
    from numfuzz.model.check import check_model
    from numfuzz.model.hf_zoo.plain import WAY_SHIPPED, run_way, way_words
    from numfuzz.model.spec import ModelSpecError, load_model
    from numfuzz.targets import TargetError

    device = device or default_device()
    try:
        network, inputs, loss = load_model(spec, dtype, seed, device, train, positions)
    except ModelSpecError as exc:
        fail(str(exc))
    except Exception as exc:  # the user's function raised: theirs to mend, said in one line
        fail(f"{spec}: building the model raised {one_line(exc)}")
    bar = tqdm(desc="modules alone", unit="module", file=sys.stderr, leave=False, disable=None if not as_json else True)

    def say(k: int, of: int, path: str) -> None:
        bar.total = of
        bar.set_postfix_str(path[-48:], refresh=False)
        bar.update(k + 1 - bar.n)

    try:
        way, context = run_way(target_spec, network, inputs)  # Thunder's jit: transformers' context variables inert
        with context:
            result = check_model(
                network, inputs, target_spec, samples=samples, seed=seed, device=device, modules=modules and not train, progress=say,
                train=train, loss=loss, autocast=autocast, partings=partings and not train,
            )  # fmt: skip
    except TargetError as exc:
        fail(str(exc))
    except Exception as exc:  # eager or the capture raised: the model, not the target, fails
        fail(f"{spec}: the model fails in eager or in its float64 capture: {one_line(exc)}")
    finally:
        bar.close()
    saved = _save_region(result, corpus_dir, target_spec, spec) if corpus_dir is not None else None
    if as_json:
        click.echo(json.dumps({**_as_json(result), "case": str(saved) if saved else None, "way": way}, indent=1))
    else:
        click.echo(result.explain())
        if way != WAY_SHIPPED:
            click.echo(f"\n{target_spec} was given the model {way_words(way)} (numfuzz.model.hf_zoo.plain)")
        if saved is not None:
            click.echo(f"\nsaved the region as {saved}: numfuzz minimize {saved} --import ... to shrink it, numfuzz repro to file it")
    sys.exit(1 if result.is_finding else 0)


def _save_region(result: Any, corpus_dir: Path, target_spec: str, spec: str) -> Path | None:
    """The checked region, where it is a finding, saved as a case under DIR/findings."""
    from numfuzz.corpus.store import save_case

    checked = result.region_check
    if checked is None or not checked.result.is_finding:
        return None
    return save_case(checked.case(target_spec, spec), corpus_dir / "findings")


def _as_json(result: Any) -> dict:
    """The result as plain data (`ModelResult`)."""
    from dataclasses import asdict

    return {
        "target": result.target,
        "verdict": result.verdict.value,
        "finding": result.is_finding,
        "cause": result.cause,
        "known": result.known,
        "detail": result.detail,
        "graphs": result.graphs,
        "captured_ops": len(result.captured_ops),
        "outputs": [{"label": result.label(o.index), **asdict(o)} for o in result.outputs],
        "modules": [
            {"path": m.path, "kind": m.kind, "verdict": m.verdict.value, "known": m.known, "eager_max_ulp": m.eager_ulp, "target_max_ulp": m.target_ulp}
            for m in result.modules
        ],
        "parts_at": result.parts_at.path if result.parts_at is not None else None,
        "coverage": result.coverage.to_json() if result.coverage is not None else None,
        "localised": _region_check_json(result.region_check),  # the key `--json` has said since it began
        "partings": result.partings if isinstance(result.partings, str) else [asdict(p) for p in result.partings or []],
    }


def _region_check_json(checked: Any) -> dict | None:
    if checked is None:
        return None
    culprit, facts = checked.result.culprit, checked.result.analysis
    return {
        "module": checked.path,
        "ops": len(checked.region.graph.nodes),
        "verdict": checked.result.verdict.value,
        "op": culprit.op if culprit is not None else None,
        "line": checked.line,
        "cause": facts.cause if facts is not None else None,
    }
