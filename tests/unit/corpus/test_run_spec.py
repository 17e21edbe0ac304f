"""The run specification: stored with the case, old case files loading with the meaning they had, and one typed value to the worker."""

import json
import pickle
import subprocess
import sys

import pytest
import torch
from helpers import FINDINGS, plain_config

from numfuzz.campaign.config import CampaignConfig
from numfuzz.workers.settings import WorkerSettings
from numfuzz.corpus.case import SCHEMA_VERSION, Case, CaseError
from numfuzz.corpus.make import make_case
from numfuzz.corpus.store import load_case, save_case
from numfuzz.program.generator import GenConfig
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec, RunSpecError

GRAPH = Graph((TensorSpec((4,), "fp32"),), (Node.make("tanh", [0]),), (1,))


def _schema1(case: Case, imports: list[str]) -> dict:
    """The case as numfuzz wrote it before the run specification: a bare target, imports in the provenance."""
    data = case.to_json()
    del data["run"]
    data.update(schema=1, target=case.target, provenance={**data["provenance"], "imports": imports})
    return data


def test_a_schema_1_file_loads_as_it_ran_then_and_keeps_its_name():
    case = Case.from_tensors(GRAPH, [[torch.ones(4)], [torch.zeros(4)]], "inductor", provenance={"seed": 3})
    old = Case.from_json(_schema1(case, ["/plugins/mine.py"]))
    assert old.run == RunSpec("inductor", device=None, samples=2, search=0.0, imports=("/plugins/mine.py",))
    assert "imports" not in old.provenance
    assert old.content_hash() == case.content_hash()  # a file keeps its content-hash name across the schema change
    again = Case.from_json(json.loads(json.dumps(old.to_json())))
    assert again.to_json()["schema"] == SCHEMA_VERSION == 2 and again.run == old.run


def test_every_committed_finding_loads_with_its_target_and_no_device():
    for path in sorted(FINDINGS.glob("*.json")):
        case, data = load_case(path), json.loads(path.read_text())
        assert case.run.target == (data["target"] if data["schema"] == 1 else data["run"]["target"])
        assert case.run.device is None and case.run.samples == len(case.samples)


def test_a_made_case_carries_its_run_specification_through_save_and_load(tmp_path):
    run = RunSpec("thunder:torch", "cpu", samples=3, search=0.5, imports=("numfuzz_plugin",))
    case = make_case(17, run, GenConfig(max_nodes=2, max_dim=3))
    assert case.run is run and len(case.samples) == 3
    loaded = load_case(save_case(case, tmp_path))
    assert loaded.run == run and loaded.target == "thunder:torch"


@pytest.mark.parametrize(
    "run, why",
    [
        ({"device": "cpu"}, "names no target"),
        ({"target": "inductor", "samples": 0}, "samples must be a positive integer"),
        ({"target": "inductor", "search": 99.0}, "search is a share"),
        ({"target": "inductor", "device": "tpu"}, "unknown device"),
        ({"target": "inductor", "fused": True}, "unknown fields: fused"),
        ({"target": "inductor", "dynamic": True}, "dynamic is one of static, dynamic, marked"),
        ({"target": "inductor", "dynamic": "marked"}, "marked dims go with dynamic='marked'"),
        ({"target": "inductor", "marked": [[0, 1]]}, "marked dims go with dynamic='marked'"),
        ({"target": "inductor", "dynamic": "marked", "marked": [[0, -1]]}, "non-negative integers"),
        ({"target": "inductor", "config": [["max_autotune", 1]]}, "config is an object"),
        ({"target": "inductor", "config": {"max_autotune": [1]}}, "config maps option names"),
        ({"target": "inductor", "grad": 1}, "grad is true or false"),
        ("inductor", "not an object"),
    ],
)
def test_a_bad_run_specification_is_one_line(run, why):
    data = Case.from_tensors(GRAPH, [[torch.ones(4)]], "inductor").to_json()
    data["run"] = run
    with pytest.raises(CaseError, match=why) as info:
        Case.from_json(data)
    assert "\n" not in str(info.value)


def test_run_spec_rejects_bad_values_directly():
    with pytest.raises(RunSpecError):
        RunSpec("")
    with pytest.raises(RunSpecError):
        RunSpec("inductor", samples=True)


def test_the_journal_identity_keeps_the_form_earlier_versions_wrote():
    """A campaign begun before the typed configuration must resume: its journal is named by this dict's hash."""
    config = plain_config(targets=("inductor",), graphs=4, seed=7, shard=(1, 2), samples=16, search=0.25, gen=GenConfig(max_nodes=3, ops=("tanh", "exp")))
    assert config.identity() == {
        "seed": 7,
        "shard": "1/2",
        "targets": ["inductor"],
        "samples": 16,
        "device": "cpu",
        "gen": {"min_nodes": 1, "max_nodes": 3, "max_rank": 4, "max_dim": 8, "mix_dtypes": 0.15, "ops": ["tanh", "exp"], "seams": 0.0, "device": "cpu", "search": 0.25},
    }


def test_samples_reach_the_worker_in_the_run_specification():
    config = plain_config(targets=("thunder:torch", "inductor"), graphs=1, samples=5, search=0.5, imports=("numfuzz_plugin",), device="cpu")
    settings = pickle.loads(pickle.dumps(config.worker_settings(memory_limit=2**30, thread_count=1)))
    assert isinstance(settings, WorkerSettings)
    assert settings.run_for("inductor") == RunSpec("inductor", "cpu", 5, 0.5, ("numfuzz_plugin",))
    assert settings.imports == ("numfuzz_plugin",) and settings.recycle_bytes == int(0.75 * 2**30)
    with pytest.raises(Exception):
        settings.runs = ()  # immutable


def test_worker_settings_unpickle_without_torch():
    """A worker chooses its compile settings before torch loads, so what it is started with must not import torch."""
    blob = pickle.dumps(plain_config(targets=("inductor",), graphs=1).worker_settings(None, 1))
    code = f"import pickle, sys; pickle.loads({blob!r}); sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_a_config_is_immutable_and_needs_a_budget():
    with pytest.raises(ValueError, match="budget"):
        plain_config(targets=("inductor",))
    config = plain_config(targets=("inductor",), graphs=1)
    with pytest.raises(Exception):
        config.workers = 3


def test_the_new_fields_default_to_static_sizes_and_the_default_options_and_leave_old_files_as_they_were():
    """A case written before symbolic sizes and compiler options loads as static with no options, keeps its name and writes the same run."""
    case = Case.from_tensors(GRAPH, [[torch.ones(4)]], RunSpec("inductor", "cpu", samples=1))
    data = json.loads(json.dumps(case.to_json()))
    assert set(data["run"]) == {"target", "device", "samples", "search", "imports", "grad"}  # nothing new at the defaults
    loaded = Case.from_json(data)
    assert (loaded.run.dynamic, loaded.run.marked, loaded.run.compiler_options, loaded.second) == ("static", (), (), None)
    assert loaded.run.default_compile and loaded.run.compile_label() == "" and loaded.run.hashed() == {}
    assert loaded.content_hash() == case.content_hash() and loaded.to_json() == data


def test_symbolic_sizes_and_options_are_stored_and_hashed():
    static = RunSpec("inductor", "cpu", samples=1)
    marked = static.with_changes(dynamic="marked", marked=((0, 0),), compiler_options={"cpp.simdlen": 256})
    assert marked.compiler_options == (("cpp.simdlen", 256),) and marked.compile_label(dims=True) == "marked x0.0 cpp.simdlen=256"
    assert RunSpec.from_json(json.loads(json.dumps(marked.to_json()))) == marked
    assert marked.to_json()["config"] == {"cpp.simdlen": 256}  # stored under the key cases have always had
    with pytest.raises(RunSpecError, match="unknown fields: compiler_options"):
        RunSpec.from_json({"target": "inductor", "compiler_options": {"cpp.simdlen": 256}})
    hashes = {Case.from_tensors(GRAPH, [[torch.ones(4)]], run).content_hash() for run in (static, marked, static.with_changes(dynamic="dynamic"))}
    assert len(hashes) == 3  # each compiles another program


def test_a_second_size_is_stored_bit_for_bit_and_checked_on_load():
    from numfuzz.corpus.case import SecondSize
    from numfuzz.program.values import encode

    run = RunSpec("inductor", "cpu", samples=1, dynamic="dynamic")
    second = SecondSize(((7,),), ((encode(torch.full((7,), 0.1)),),))
    case = Case.from_tensors(GRAPH, [[torch.ones(4)]], run, second=second)
    loaded = Case.from_json(json.loads(json.dumps(case.to_json())))
    assert loaded.second == second and torch.equal(loaded.second_tensors()[0][0], torch.full((7,), 0.1))
    assert loaded.content_hash() == case.content_hash() != Case.from_tensors(GRAPH, [[torch.ones(4)]], run).content_hash()
    data = case.to_json()
    data["run"] = {**data["run"], "dynamic": "static"}
    with pytest.raises(CaseError, match="compiles static sizes"):
        Case.from_json(data)
    data = case.to_json()
    data["second_size"]["shapes"] = [[5]]
    with pytest.raises(CaseError, match="second_size"):
        Case.from_json(data)


def test_a_campaign_with_the_mix_off_keeps_its_journal_identity_and_one_with_it_gets_another():
    from numfuzz.run_spec import RunMix

    off = plain_config(targets=("inductor",), graphs=1)
    on = plain_config(targets=("inductor",), graphs=1, mix=RunMix(dynamic=0.2, marked=0.1, config_share=0.3))
    assert "mix" not in off.identity() and on.identity()["mix"] == {"dynamic": 0.2, "marked": 0.1, "config": 0.3}
    with pytest.raises(RunSpecError, match="add up to more than 1"):
        RunMix(dynamic=0.7, marked=0.5)


def test_every_committed_case_saves_back_as_it_was_and_writes_a_static_default_repro():
    from helpers import SEEDS

    from numfuzz.repro.script import script_source
    from numfuzz.targets import resolve

    for path in sorted([*FINDINGS.glob("*.json"), *SEEDS.glob("*.json")]):
        data = json.loads(path.read_text())
        case = Case.from_json(data)
        assert case.run.default_compile and case.second is None
        if data["schema"] == 2:
            assert case.to_json() == data, path  # no new field written at its default
        if case.target.startswith("inductor"):
            script = script_source(case, resolve(case.target), "cpu")
            assert "dynamic=False" in script and "mark_dims" not in script and "second size" not in script
