"""Odd tails: with `GenConfig.odd_tail`, a graph's first input has one dim of 9 to 67 and its others 1 or 2, so that a
case stays small; at 0 (the generator's default) graphs draw as before, and the campaign's default share draws some."""

from numfuzz.program.generator import generate
from numfuzz.program.seams import ODD_TAILS
from numfuzz.program.space import GenConfig


def test_every_graph_at_share_one_starts_from_a_small_odd_tail():
    sizes = set()
    for seed in range(60):
        graph, _ = generate(seed, GenConfig(odd_tail=1.0))
        first = graph.inputs[0].shape  # inputs keep their order of making: the first is the graph's start
        long = [d for d in first if d > 2]
        assert len(long) == 1 and long[0] in ODD_TAILS, first
        assert graph.inputs[0].numel <= 2 ** (len(first) - 1) * max(ODD_TAILS)
        sizes.add(long[0])
    assert len(sizes) > 20 and any(s % 2 for s in sizes) and max(sizes) > 40


def test_at_share_zero_graphs_draw_as_before_and_the_default_draws_some():
    config = GenConfig()
    assert config.odd_tail == 0.0
    for seed in range(20):
        assert generate(seed, config) == generate(seed, GenConfig(odd_tail=0.0))

    def past_eight(**settings: float) -> int:  # seams, blocks, models, large values and integer programs have such dims too: off here
        gen = GenConfig.default(seams=0.0, large=0.0, blocks=0.0, models=0.0, integers=0.0, **settings)
        return sum(any(d > 8 for d in generate(seed, gen)[0].inputs[0].shape) for seed in range(400))

    assert GenConfig.default().odd_tail > 0 and past_eight(odd_tail=0.0) == 0 and past_eight() >= 8  # 5% of 400: about 20
