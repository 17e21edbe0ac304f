"""Targets compiling a case's size mode and drawn options, and the configuration space as data. No compile here."""

import random

import pytest

from numfuzz.address import COMPILE_BLOCK, CaseAddress
from numfuzz.program.generator import GenConfig, generate
from numfuzz.run_spec import RunMix, RunSpec
from numfuzz.targets import TargetError, resolve
from numfuzz.targets.compile_modes import configured
from numfuzz.targets.config_space import ConfigSpaceError, draw_options, entries_for, load_space, parse_space
from numfuzz.targets.run_draw import available_entries, draw_run


def test_a_static_default_case_compiles_exactly_as_before():
    target = resolve("inductor")
    assert configured(target, RunSpec("inductor")) is target
    assert target.repro_source() == ([], 'torch.compile(fn, backend="inductor", dynamic=False, options=None)') and target.repro_guard() == ""


def test_inductor_compiles_symbolic_sizes_marked_dims_and_drawn_options_over_its_own():
    target = resolve("inductor:emulate_precision_casts=1")
    dynamic = configured(target, RunSpec(target.name, dynamic="dynamic", compiler_options={"cpp.simdlen": 256}))
    assert dynamic.repro_source()[1] == "torch.compile(fn, backend=\"inductor\", dynamic=True, options={'emulate_precision_casts': True, 'cpp.simdlen': 256})"
    marked = configured(target, RunSpec(target.name, dynamic="marked", marked=((0, 1),)))
    assert marked.repro_source()[1].startswith('mark_dims(torch.compile(fn, backend="inductor", dynamic=False') and marked.repro_source()[1].endswith(
        "((0, 1),))"
    )
    assert "def mark_dims" in marked.repro_guard() and target.options == {"emulate_precision_casts": True}  # the original is untouched


def test_an_option_this_torch_lacks_makes_the_configured_target_unavailable_with_the_reason():
    ok, why = configured(resolve("inductor"), RunSpec("inductor", compiler_options={"no_such_option": True})).available()
    assert not ok and "has no option 'no_such_option'" in why


def test_a_size_mode_a_family_does_not_compile_is_one_line():
    with pytest.raises(TargetError, match="cannot compile dynamic='marked'"):
        configured(resolve("thunder:torch"), RunSpec("thunder:torch", dynamic="marked", marked=((0, 0),)))
    with pytest.raises(TargetError, match="static sizes with its own options only"):
        configured(resolve("eager"), RunSpec("eager", dynamic="dynamic"))


def test_thunder_jit_takes_symbolic_values_and_thunderfx_dynamic_true():
    jit = configured(resolve("thunder:torch"), RunSpec("thunder:torch", dynamic="dynamic", compiler_options={"transforms": "constant_folding"}))
    assert jit._mode_kwargs() == {"cache": "symbolic values"} and jit.transforms == ("constant_folding",)
    assert "cache='symbolic values'" in jit.repro_source()[1] and "thunder.transforms.ConstantFolding()" in jit.repro_source()[1]
    fx = configured(resolve("thunderfx"), RunSpec("thunderfx", dynamic="dynamic"))
    assert fx._mode_kwargs() == {"dynamic": True}
    with pytest.raises(TargetError, match="no transform 'nope'"):
        configured(resolve("thunder:torch"), RunSpec("thunder:torch", compiler_options={"transforms": "nope"}))


def test_the_shipped_space_parses_and_draws_one_or_two_entries():
    space = load_space()
    assert {"inductor", "thunder"} <= set(space)
    assert all(e.weight == 0 for e in space["inductor"] if e.name in ("coordinate-descent", "fallback-random", "unsafe-math"))
    rng = random.Random(3)
    drawn = [draw_options(entries_for("inductor"), rng) for _ in range(200)]
    assert all(1 <= len(d) <= 3 for d in drawn) and any(len(d) >= 2 for d in drawn)
    assert not any("cpp.enable_unsafe_math_opt_flag" in d for d in drawn)  # weight 0: never drawn


@pytest.mark.parametrize(
    "text, why",
    [("[[inductor]]\nname = 'x'\n", "needs a name and options"), ("inductor = 3", "must be a list"), ("[[i]]\nname='x'\noptions={a=[1]}", "option values")],
)
def test_a_malformed_space_is_one_line(text, why):
    with pytest.raises(ConfigSpaceError, match=why):
        parse_space(text)


def test_a_campaign_draws_modes_by_their_shares_and_static_cases_stay_as_they_were():
    graph, _ = generate(5, GenConfig(max_nodes=4))
    run = RunSpec("inductor", "cpu", samples=8)
    assert draw_run(CaseAddress(5), run, graph, RunMix())[0] == run
    runs = [draw_run(CaseAddress(s), run, generate(s, GenConfig(max_nodes=4))[0], RunMix(dynamic=0.3, marked=0.2, config_share=0.4)) for s in range(300)]
    modes = [r.dynamic for r, _ in runs]
    assert 0.2 < modes.count("dynamic") / 300 < 0.4 and 0.1 < modes.count("marked") / 300 < 0.3
    assert 0.3 < sum(bool(r.compiler_options) for r, _ in runs) / 300 < 0.5
    assert all(second is None for r, second in runs if r.dynamic == "static") and all(r.marked for r, _ in runs if r.dynamic == "marked")
    names = {k for e in available_entries("inductor", "inductor") for k, _ in e.options}
    assert all(set(r.options) <= names for r, _ in runs)


def test_a_campaign_block_shares_its_mode_options_and_threads_and_the_shares_hold_across_blocks():
    run, mix = RunSpec("inductor", "cpu", samples=8), RunMix(dynamic=0.3, marked=0.1, config_share=0.4, thread_share=0.3, thread_count=2)
    drawn = [draw_run(CaseAddress(s, i, campaign=7), run, generate(s, GenConfig(max_nodes=4))[0], mix)[0] for i, s in enumerate(range(400))]
    keys = [(r.compiler_options, r.threads) for r in drawn]
    blocks = [set(keys[i : i + COMPILE_BLOCK]) for i in range(0, 400, COMPILE_BLOCK)]
    assert all(len(block) == 1 for block in blocks)  # every case of a block: one batch key
    assert 0.2 < sum(bool(c) for c, _ in keys) / 400 < 0.6 and 0.1 < sum(t == 2 for _, t in keys) / 400 < 0.5
    modes = [{r.dynamic for r in drawn[i : i + COMPILE_BLOCK]} - {"static"} for i in range(0, 400, COMPILE_BLOCK)]
    assert all(len(m) <= 1 for m in modes)  # one mode a block, or static where a graph cannot take it
    assert 0.1 < sum(r.dynamic == "dynamic" for r in drawn) / 400 < 0.5  # 50 blocks: a wide margin
    assert CaseAddress(11, 3).shared == 11  # a case of its own draws from its own seed
    assert CaseAddress(1, 0, 7).shared == CaseAddress(2, COMPILE_BLOCK - 1, 7).shared != CaseAddress(3, COMPILE_BLOCK, 7).shared
    assert CaseAddress(1, 0, 7, lineage=(5,)).shared == 5  # a guided child runs alone: its draws are its own


def test_a_family_that_compiles_static_sizes_only_gets_static_cases():
    graph, _ = generate(1, GenConfig(max_nodes=3))
    run, second = draw_run(CaseAddress(1), RunSpec("eager", "cpu", samples=4), graph, RunMix(dynamic=1.0, config_share=1.0))
    assert (run.dynamic, run.compiler_options, second) == ("static", (), None)


def test_an_entry_for_other_torch_versions_or_of_only_defaults_is_not_drawn():
    import torch

    space = parse_space('[[s]]\nname = "new"\noptions = { a = 1 }\ntorch = ">=99"\n\n[[s]]\nname = "any"\noptions = { a = 2 }\n')
    (new, anywhere) = space["s"]
    assert not new.fits("2.9.1+cu128") and new.fits("99.0") and anywhere.fits("2.9.1")
    with pytest.raises(ConfigSpaceError, match="not a version specifier"):
        parse_space('[[s]]\nname = "x"\noptions = { a = 1 }\ntorch = "newest"\n')
    names = [e.name for e in available_entries("inductor", "inductor")]
    default = torch._inductor.config.loop_ordering_after_fusion
    assert ("loop-ordering" in names) != default and ("no-loop-ordering" in names) == default  # the entry that flips this torch's default


def test_thunder_jit_on_the_torchcompile_executor_is_drawn_static_and_still_compiles_a_dynamic_case():
    from numfuzz.targets.run_draw import drawn_modes

    assert drawn_modes("thunder:torchcompile", ("static", "dynamic")) == ("static",)
    assert drawn_modes("thunder:torch", ("static", "dynamic")) == ("static", "dynamic")
    assert configured(resolve("thunder:torchcompile"), RunSpec("thunder:torchcompile", dynamic="dynamic"))._mode_kwargs() == {"cache": "symbolic values"}
