"""A sweep's findings grouped across architectures by root cause, and summed up per target: one crash message met in
three models is one group of three whatever the shapes in it; a known limitation and a refusal count as refusals."""

from __future__ import annotations

from numfuzz.sweep.groups import describe_groups, group_records
from numfuzz.sweep.summary import cell_state, describe_summary, summarize


def _cell(model, target="thunder:torchcompile", mode="forward", verdict="equal", finding=False, **more):
    key = f"{model} | {target} | bf16 | {mode} | 16"
    return {"key": key, "model": model, "target": target, "precision": "bf16", "mode": mode, "verdict": verdict, "finding": finding, **more}


def test_one_crash_met_in_several_models_is_one_group_whatever_its_shapes_and_known_issues_group_by_id():
    records = [
        _cell("hf:a", verdict="crash_compile", finding=True, detail="RuntimeError: shape '[1, 16, 4]' is invalid for input of size 1024"),
        _cell("hf:b", verdict="crash_compile", finding=True, detail="RuntimeError: shape '[1, 8, 2]' is invalid for input of size 96"),
        _cell("hf:c", mode="train", verdict="crash_compile", finding=True, detail="RuntimeError: shape '[2, 3]' is invalid for input of size 7"),
        _cell("hf:d", verdict="crash_compile", known="thunder-sdpa-enable-gqa", known_kind="limitation"),
        _cell("hf:e", verdict="crash_compile", known="thunder-sdpa-enable-gqa", known_kind="limitation"),
        _cell("hf:f", target="inductor", mode="train", verdict="less_accurate", finding=True, worst="loss", bits_lost=3.0),
        _cell("hf:g", verdict="invalid", detail="the model fails: ValueError: no"),
        _cell("hf:h"),
    ]
    groups = group_records(records)
    assert [(g.status, len(g.architectures)) for g in groups] == [("new", 3), ("new", 1), ("limitation", 2), ("invalid", 1)]
    assert groups[0].architectures == ["hf:a", "hf:b", "hf:c"] and "is invalid for input of size #" in groups[0].title
    assert groups[1].title == "inductor: train, the loss less accurate"
    assert "[new] thunder:torchcompile: crash_compile RuntimeError" in describe_groups(groups) and "3 architectures (a, b, c)" in describe_groups(groups)


def test_a_thunder_crash_is_one_group_whatever_its_interpreter_says_it_traced():
    """T5Gemma's forward and training step raise one AttributeError while tracing the model and its training step."""
    said = "InterpreterError: Encountered exception AttributeError: '_PerLayerConfigView' object has no attribute '_config'"
    records = [
        _cell("hf:t5gemma", verdict="crash_compile", finding=True, detail=f"{said} while tracing ZooModel(\n  (model): T5GemmaModel("),
        _cell("hf:t5gemma", mode="train", verdict="crash_compile", finding=True, detail=f"{said} while tracing LossStep(\n  (model): ZooModel("),
        _cell("hf:other", verdict="crash_compile", finding=True, detail=f"{said} while tracing <function fn at 0x7f6cefc48e00>:"),
    ]
    (group,) = group_records(records)
    assert len(group.members) == 3 and "while tracing" not in group.title


def test_an_architecture_counts_once_per_target_and_mode_by_its_most_telling_cell():
    records = [
        _cell("hf:a", mode="forward"),
        _cell("hf:a", mode="train", verdict="less_accurate", finding=True),
        _cell("hf:b", mode="forward", verdict="unsupported"),
        _cell("hf:b", mode="train", verdict="crash_run", finding=True),
        _cell("hf:c", mode="forward", verdict="crash_compile", known="x", known_kind="limitation"),
        _cell("hf:c", mode="train", verdict="within_rounding"),
    ]
    assert [cell_state(r) for r in records] == ["runs", "less_accurate", "refuses", "crash", "refuses", "runs"]
    (summary,) = summarize(records)
    assert summary.by_mode["forward"] == {"less_accurate": 0, "crash": 0, "known": 0, "refuses": 2, "invalid": 0, "runs": 1}
    assert summary.by_mode["any"] == {"less_accurate": 1, "crash": 1, "known": 0, "refuses": 1, "invalid": 0, "runs": 0}
    assert "| thunder:torchcompile | any | 3 | 1 | 1 | 0 | 1 | 0 | 0 |" in describe_summary([summary])


def test_a_stored_crash_that_a_later_known_entry_names_is_known_when_the_sweep_is_listed_again():
    """Qwen3-Next's cells on Thunder main, judged before their known entries: listed again, each is known by its message;
    an accuracy cell (whose known issues read facts a record keeps in part) and a refusal are left as they were."""
    from numfuzz.sweep.rematch import rematched

    thunder_main = {"torch": "2.11.0+cu130", "device": "cpu", "thunder": "0.2.7.dev0"}
    stored = [
        _cell(
            "hf:qwen3_next", verdict="crash_compile", finding=True,
            detail="TypeError: <function SiLUActivation.forward at 0x7f33c27b91c0>() is missing 1 required positional arguments: input",
        ),
        _cell(
            "hf:qwen3_next", target="inductor", mode="train", verdict="crash_compile", finding=True,
            detail="InductorError: CppCompileError: C++ compile error: \u2018decltype\u2019 evaluates to \u2018float\u2019, which is not a class or enumeration type",
        ),
        _cell("hf:other", verdict="crash_compile", finding=True, detail="RuntimeError: something no entry names"),
        _cell("hf:qwen3_moe", target="inductor", verdict="less_accurate", finding=True, worst="logits", bits_lost=2.0),
        _cell("hf:qwen3_next", target="thunderfx:torchcompile", verdict="unsupported", finding=True, detail="NotImplementedError: torch.eye"),
    ]  # fmt: skip
    now = rematched({r["key"]: r for r in stored}, thunder_main)
    assert [now[r["key"]].get("known", "") for r in stored] == [
        "numfuzz-thunder-container-subclass-getitem-override", "pytorch-173626", "", "", "",
    ]  # fmt: skip
    assert [now[r["key"]]["finding"] for r in stored] == [False, False, True, True, True]
    groups = group_records(list(now.values()))
    assert sorted(g.architectures[0] for g in groups if g.status == "new") == ["hf:other", "hf:qwen3_moe"]
    on_2_15 = rematched({stored[1]["key"]: stored[1]}, {**thunder_main, "torch": "2.15.0"})  # the regression's torch bound
    assert on_2_15[stored[1]["key"]].get("known") is None


def test_a_mode_left_changed_is_one_group_by_its_words_and_counts_as_a_wrong_result():
    """Two models whose compiled training steps leave grad mode off after their second call: one `state` group, and each
    architecture counted with the silent wrong results, not with the crashes."""
    said = "after call 2, the compiled model leaves grad mode off where eager leaves it on"
    records = [_cell(m, target="thunderfx:torchcompile", mode="train", verdict="state", finding=True, detail=said) for m in ("hf:a", "hf:b")]
    (group,) = group_records(records)
    assert group.status == "new" and group.architectures == ["hf:a", "hf:b"]
    assert group.title == "thunderfx:torchcompile: state after call #, the compiled model leaves grad mode off where eager leaves it on"
    assert {cell_state(r) for r in records} == {"less_accurate"}
