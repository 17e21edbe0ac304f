"""Seam-seeking graphs and samples: sizes that straddle widths, the reduction motif, values repeated across the seam."""

import random

import numpy as np

from numfuzz.address import CaseAddress
from numfuzz.judge.position import repeated_block
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ops import OPS
from numfuzz.program.samples import draw_samples
from numfuzz.program.seams import CPU_WIDTHS, GPU_WIDTHS, mirror, seam_shape, seam_size


def _straddles(size: int, widths: tuple[int, ...]) -> bool:
    return any(size > w and size % w for w in widths)


def test_seam_sizes_straddle_a_width_on_each_device():
    rng = random.Random(0)
    assert all(_straddles(seam_size(rng, "cpu"), CPU_WIDTHS) for _ in range(200))
    assert all(_straddles(seam_size(rng, "cuda"), GPU_WIDTHS) for _ in range(200))


def test_seam_shapes_put_the_seam_in_a_row_or_in_the_count_of_short_rows():
    rng = random.Random(1)
    shapes = [seam_shape(rng, 4) for _ in range(200)]
    long_rows = [s for s in shapes if _straddles(s[-1], CPU_WIDTHS)]
    short_rows = [s for s in shapes if len(s) == 2 and s[-1] <= 5 and _straddles(s[0], CPU_WIDTHS)]
    assert long_rows and short_rows and len(long_rows) + len(short_rows) == len(shapes)
    assert all(int(np.prod(s)) <= 4096 for s in shapes)


def test_seam_graphs_reduce_a_recomputed_op_along_the_rows():
    config = GenConfig(seams=1.0, max_nodes=4)
    motifs = 0
    for seed in range(100):
        graph, _ = generate(seed, config)
        first = graph.nodes[0] if graph.nodes else None
        assert _straddles(max(graph.inputs[0].shape), CPU_WIDTHS)
        # the motif reduces along the last dim; a graph whose motif failed to type may draw the pair by chance, along any
        if len(graph.nodes) >= 2 and OPS[first.op].recomputed and OPS[graph.nodes[1].op].consumer:
            motifs += dict(graph.nodes[1].attrs).get("dim", -1) == -1
    assert motifs >= 50  # the motif is drawn four times in five, and may fail to type


def test_seams_move_only_the_graphs_that_seek_one():
    assert GenConfig().seams == 0.0  # off unless asked for (the CLI asks, with its own default)
    moved = 0
    everywhere = GenConfig(ops=tuple(n for n, s in OPS.items() if not s.cpu_dtypes))  # ops whose CPU kernel takes every dtype
    for seed in range(60):
        plain, plain_recipes = generate(seed, GenConfig())
        assert generate(seed, everywhere, "cuda") == generate(seed, everywhere)  # the device's widths matter to seams only
        seeking = CaseAddress(seed).graph_streams()("seams").random() < 0.3
        with_seams = generate(seed, GenConfig(seams=0.3))
        assert (with_seams != (plain, plain_recipes)) == seeking, seed  # a graph that seeks a seam starts from a seam-sized input
        moved += seeking
    assert moved  # some do


def test_mirror_repeats_the_head_in_the_tail_of_every_input_that_spans_the_dim():
    x, y, b = np.arange(2 * 19.0).reshape(2, 19), np.arange(19.0) + 100, np.ones((2, 1))
    mx, my, mb = mirror([x, y, b], -1)
    assert np.array_equal(mx[:, -3:], x[:, :3]) and np.array_equal(my[-3:], y[:3]) and np.array_equal(mb, b)
    assert np.array_equal(mx[:, :16], x[:, :16])  # 19 = 16 + 3: the body is untouched
    rows = mirror([x], -2)[0]
    assert np.array_equal(rows[-1], x[0])


def test_every_fourth_sample_repeats_values_across_a_seam_and_the_check_sees_it():
    graph, recipes = generate(3, GenConfig(seams=1.0))
    samples = draw_samples(graph, recipes, 3, 8, mirror_every=4)
    repeated = [i for i, s in enumerate(samples) if any(repeated_block(s, axis) for axis in (-1, -max(a.ndim for a in s)))]
    assert repeated == [3, 7]
    plain = draw_samples(graph, recipes, 3, 8)
    assert all(np.array_equal(a, b) for i in (0, 1, 2) for a, b in zip(plain[i], samples[i]))  # the others are drawn as before
