from collections import Counter
from dataclasses import replace

import numpy as np

from numfuzz.address import CaseAddress, case_seed
from numfuzz.corpus.make import make_case
from numfuzz.judge.execute import evaluate
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ops import infer_specs, own_ops
from numfuzz.program.values import RECIPE_KINDS
from numfuzz.run_spec import RunSpec
from numfuzz.targets import resolve


def test_same_seed_same_graph_and_inputs():
    a, b = make_case(1234, RunSpec("eager", samples=4)), make_case(1234, RunSpec("eager", samples=4))
    assert a.graph == b.graph and a.samples == b.samples and a.content_hash() == b.content_hash()
    assert make_case(1235, RunSpec("eager", samples=4)).content_hash() != a.content_hash()


def test_case_seeds_are_distinct_and_stable():
    seeds = [case_seed(7, i) for i in range(1000)]
    assert len(set(seeds)) == 1000
    # SHA-256 of "numfuzz:<campaign seed>:<index>", its first 8 bytes little-endian: resumes and
    # shards of a campaign started with another version draw the same cases.
    assert case_seed(0, 0) == 7295669134398668114
    assert case_seed(7, 999) == seeds[-1] == 6826476734499563832


def test_sizes_follow_the_config():
    config = GenConfig(min_nodes=2, max_nodes=3, max_rank=2, max_dim=3)
    for seed in range(100):
        graph, _ = generate(seed, config)
        assert 1 <= len(graph.nodes) <= 3 + 3  # domain guards may add an abs per node
        assert all(len(s.shape) <= 2 and all(d <= 3 for d in s.shape) for s in graph.inputs[:1])


def test_every_op_and_recipe_is_drawn():
    """Every hand-written op in 600 graphs of the plain space without the databases' (which `test_op_db` draws by form)."""
    ops, kinds = Counter(), Counter()
    own = GenConfig(ops=tuple(own_ops()))
    for seed in range(600):
        graph, recipes = generate(seed, own)  # the plain space: every op, no start from a block or a model
        ops.update(n.op for n in graph.nodes)
        kinds.update(r.kind for r in recipes)
    assert set(own_ops()) <= set(ops), f"never drawn: {set(own_ops()) - set(ops)}"
    assert set(RECIPE_KINDS) <= set(kinds)


def test_dtypes_mix():
    dtypes = Counter()
    for seed in range(200):
        graph, _ = generate(seed)
        dtypes.update({s.dtype for s in graph.inputs})
    assert {"bf16", "fp16", "fp32"} <= set(dtypes)


def test_positive_domains_get_positive_inputs():
    checked = 0
    in_domain = replace(GenConfig.default(), out_of_domain=0.0)  # the share that draws an argument off its domain on purpose
    for seed in range(300):
        case = make_case(seed, RunSpec("eager", samples=2), in_domain)
        for node in case.graph.nodes:
            if node.op in ("log", "sqrt", "rsqrt", "log1p") and node.args[0] < len(case.graph.inputs):
                for sample in case.tensors():
                    assert bool((sample[node.args[0]] > 0).all())
                checked += 1
    assert checked > 5


def test_generated_programs_run_in_eager():
    """The hand-written ops' programs always run; the databases' may ask for values numfuzz does not draw (`test_op_db`)."""
    eager = resolve("eager")
    reasons = Counter()
    own = GenConfig.default(ops=tuple(own_ops()))
    for seed in range(150):
        case = make_case(seed, RunSpec("eager", samples=2), own)
        infer_specs(case.graph)
        outcome = evaluate(case.graph, case.tensors(), eager, "cpu")
        reasons[outcome.detail.split(" ")[0] if outcome.detail else outcome.verdict.value] += 1
        assert "eager raised" not in outcome.detail, (seed, outcome.detail)
        assert "op table says" not in outcome.detail, (seed, outcome.detail)
    # Eager against itself is never a finding.
    assert reasons["equal"] > 100, reasons


def test_values_vary_in_magnitude():
    mags = []
    for seed in range(100):
        case = make_case(seed, RunSpec("eager", samples=1))
        for t in case.tensors()[0]:
            a = t.double().abs()
            mags.extend(a[a > 0].log10().tolist())
    mags = np.array(mags)
    assert mags.min() < -3 and mags.max() > 3


def test_many_graphs_type_check_and_lower():
    from numfuzz.program.lowering import lower

    for seed in range(2000):
        graph, _ = generate(case_seed(0, seed))
        infer_specs(graph)
        lower(graph)
        lower(graph, reference=True)


# A graph's chances, each with the draw that says whether it is taken: at share 0.3 against 0, the graphs whose
# stream says "not taken" are drawn as before, choice for choice (each draw has its own stream).
GRAPH_CHANCES = ("large", "blocks", "models", "empty", "odd_tail", "seams", "autocast")


def test_a_chance_turned_on_moves_only_the_graphs_that_take_it():
    for chance in GRAPH_CHANCES:
        taken = 0
        for seed in range(24):
            plain = generate(seed, GenConfig(fp64=0.0))
            if CaseAddress(seed).graph_streams()(chance).random() < 0.3:
                taken += 1
            else:
                assert generate(seed, GenConfig(fp64=0.0, **{chance: 0.3})) == plain, (chance, seed)
        assert taken, chance  # some seed takes it (so that the graphs compared are those that do not)


def test_per_input_chances_move_only_their_own_draws():
    for seed in range(40):
        plain, recipes = generate(seed, GenConfig(layouts=0.0))
        strided, strided_recipes = generate(seed, GenConfig(layouts=1.0))
        assert strided.nodes == plain.nodes and strided_recipes == recipes  # layouts change how inputs sit in memory, nothing else
        assert [s.shape for s in strided.inputs] == [s.shape for s in plain.inputs]
