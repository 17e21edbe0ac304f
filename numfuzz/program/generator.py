"""Seeded, deterministic random graphs and input recipes. Calls no compiler.

Each draw takes its own stream (`numfuzz.address.GRAPH_DRAWS`), so that a new draw, or a chance
turned on or off, leaves every other draw of a seed as it was.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from numfuzz.address import CaseAddress, GraphStreams
from numfuzz.program.autocast import draw_region
from numfuzz.program.blocks import start_from_block, swap_ops
from numfuzz.program.dtypes import PROGRAM_DTYPES, is_integer
from numfuzz.program.families import family_of
from numfuzz.program.fine import fine_ops
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.layout import draw_layout, draw_view
from numfuzz.program.model_scale import JUDGE_ELEMENTS, LARGE_ELEMENTS, MIN_SAMPLES, SMALL_ELEMENTS, large_shape
from numfuzz.program.op_db.family import INTEGER_TAIL, INTEGER_VALUES, in_integer_programs, integer_weight, kept_out_of_regions
from numfuzz.program.op_spec import INDEX_DTYPE, scalar
from numfuzz.program.ops import OPS, OpSpec, autocast_policy, infer_node, infer_specs
from numfuzz.program.scalars import PASSED
from numfuzz.program.seams import odd_tail_shape, seam_shape
from numfuzz.program.space import GenConfig
from numfuzz.program.values import INTEGER, LOWEST, LOWEST_SHARE, RECIPE_KINDS, SIGNED, Recipe
from numfuzz.program.zoo import start_from_zoo

RECIPE_WEIGHTS = (0.4, 0.2, 0.15, 0.1, 0.15)
# The ops that take a node's value into a domain (an input's values are drawn there instead).
# softsign, x / (1 + |x|), reaches +-1 only past 2^24 in fp32, where tanh and sigmoid saturate
# near 9 and 17: atanh(tanh(x)) would mostly test how soon tanh rounds to 1.
GUARDS = {
    "positive": [("abs", {})],
    "unit": [("softsign", {})],
    "probability": [("softsign", {}), ("mul_scalar", {"value": 0.5}), ("add_scalar", {"value": 0.5})],
    "above_one": [("abs", {}), ("add_scalar", {"value": 1.0})],
    "sign": [("sign", {})],
}
DTYPE_WEIGHTS = (0.4, 0.25, 0.35)


class _Builder:
    def __init__(self, draw: GraphStreams, config: GenConfig, widths: str, max_elements: int = SMALL_ELEMENTS):
        self.draw, self.config, self.widths, self.max_elements = draw, config, widths, max_elements
        self.rng = draw("structure")  # which values an op takes; a block's or a window's content (`blocks`, `zoo`)
        self.inputs: list[TensorSpec] = []
        self.recipes: list[Recipe] = []
        self.specs: list[TensorSpec] = []  # every value: inputs, then nodes
        self.nodes: list[Node] = []
        self.is_input: list[bool] = []
        self.used: set[int] = set()
        self.allow_empty = False  # a graph drawn with a size-0 dim (`GenConfig.empty`) keeps empty values
        self.integer_program = False  # a graph drawn as an integer program (`GenConfig.integers`) grows on its integer values
        self.float64_program = False  # a float64 program (`GenConfig.fp64`), judged against a reference finer than float64

    # Values are numbered with inputs first; inputs are added lazily, so keep a mapping.
    def new_input(self, shape: tuple[int, ...], dtype: str, domain: str = "any") -> int:
        kind = self.draw("recipes").choices(RECIPE_KINDS, RECIPE_WEIGHTS)[0]
        return self._append_input(TensorSpec(tuple(shape), dtype), Recipe(kind, domain))

    def new_index_input(self, shape: tuple[int, ...], bound: int, dtype: str = INDEX_DTYPE) -> int:
        """An integer input (class targets, indices, exponents) whose values are drawn in [0, bound)."""
        if bound < 1:
            raise GraphError("no valid index in an empty dim")
        return self._append_input(TensorSpec(tuple(shape), dtype), Recipe("index", "index", bound))

    def new_integer_input(self, shape: tuple[int, ...], dtype: str) -> int:
        """An integer or bool value of the program (`values.draw_integers`), not positions: an integer op's operand."""
        lowest = dtype in SIGNED and self.draw("lowest").random() < LOWEST_SHARE
        return self._append_input(TensorSpec(tuple(shape), dtype), Recipe(INTEGER, LOWEST if lowest else INTEGER))

    def integers(self, dtype: str) -> list[int]:
        """The program's integer values of `dtype` an op may take: those ops made, and integer inputs that are values."""
        k = -1
        found = []
        for value, spec in enumerate(self.specs):
            k += self.is_input[value]
            value_input = self.is_input[value] and self.recipes[k].kind == INTEGER
            if spec.dtype == dtype and (value_input or not self.is_input[value]):
                found.append(value)
        return found

    def _append_input(self, spec: TensorSpec, recipe: Recipe) -> int:
        self.inputs.append(spec)
        self.recipes.append(recipe)
        self.specs.append(spec)
        self.is_input.append(True)
        return len(self.specs) - 1

    def floats(self) -> list[int]:
        """The values an op may take as a float argument: every value but the integer inputs."""
        return [i for i, s in enumerate(self.specs) if not is_integer(s.dtype)]

    def add_node(self, node: Node) -> int:
        spec = infer_node(node, self.specs)
        if (spec.numel == 0 and not self.allow_empty) or spec.numel > self.max_elements:
            raise GraphError("degenerate or oversized value")
        if spec.dtype == "fp64" and not self.float64_program:  # a database form's dtype=torch.float64
            raise GraphError("a float64 value outside a float64 program: its reference would be eager's own arithmetic")
        if self.max_elements > SMALL_ELEMENTS and MIN_SAMPLES * (sum(s.numel for s in self.specs) + spec.numel) > JUDGE_ELEMENTS:
            raise GraphError("the case's values would pass the judge's memory budget")
        self.nodes.append(node)
        self.specs.append(spec)
        self.is_input.append(False)
        self.used.update(node.args)
        return len(self.specs) - 1

    def random_shape(self) -> tuple[int, ...]:
        rng = self.draw("shapes")
        rank = rng.randint(1, self.config.max_rank)
        return tuple(rng.randint(1, self.config.max_dim) for _ in range(rank))

    def pick_value(self) -> int:
        # Favour recent and unused values so graphs grow as chains with side branches; an integer program's are its integers.
        values = [v for d in INTEGER_VALUES for v in self.integers(d)] if self.integer_program else self.floats()
        weights = [(1 + i) * (3 if i not in self.used else 1) for i in values]
        return self.rng.choices(values, weights)[0]

    def partner_dtype(self, dtype: str, same: bool) -> str:
        rng = self.draw("mix_dtypes")
        if not same and rng.random() < self.config.mix_dtypes:
            return rng.choice(PROGRAM_DTYPES)
        return dtype

    def ensure_domain(self, value: int, domain: str) -> int:
        """`value`, or a guard of it, inside `domain`: an input draws its values there, a node's value gets a guard op."""
        if domain == "any":
            return value
        if domain != "index" and self.draw("out_of_domain").random() < self.config.out_of_domain:
            return value
        if self.is_input[value]:
            k = sum(self.is_input[: value + 1]) - 1
            if self.recipes[k].domain == domain:
                return value
            if self.recipes[k].domain == "any":
                self.recipes[k] = Recipe(self.recipes[k].kind, domain)
                return value
        if domain == "nonzero":  # a zero divisor gives a non-finite reference, and that element is left out
            return value
        for op, attrs in GUARDS[domain]:
            value = self.add_node(Node.make(op, [value], **attrs))
        return value

    def args_for(self, op: OpSpec, first: int) -> tuple[list[int], dict]:
        """The op's arguments and attributes, drawn by its family (`numfuzz.program.families`)."""
        family = family_of(op)
        if not self.specs[first].shape and not (family.pointwise or family.zero_d):
            raise GraphError(f"{op.name} needs a dim; got a 0-d value")
        attrs = op.draw_attrs(self.draw("attrs"), [self.specs[first]]) if op.draw_attrs else {}
        return family.draw(self, op, first, attrs)

    def grow(self, op: OpSpec, first: int | None = None, last_dim: bool = False) -> int:
        first = self.zero_d_instead(op, self.pick_value()) if first is None else first
        if op.lines and not self.is_input[first] and self.rng.random() < 0.5:  # an input, so that values can sit on its lines
            first = self.new_input(self.specs[first].shape, self.specs[first].dtype)
        first = self.ensure_domain(first, op.domain(0))
        if self.widths == "cpu" and op.cpu_dtypes and self.specs[first].dtype not in op.cpu_dtypes:
            raise GraphError(f"{op.name} on CPU takes {op.cpu_dtypes}, not {self.specs[first].dtype}")
        args, attrs = self.args_for(op, first)
        for i in range(1, len(args)):
            args[i] = self.ensure_domain(args[i], op.domain(i))
        if last_dim and "dim" in attrs:
            attrs["dim"] = -1
        self.pass_scalars(op, attrs, self.specs[args[0]])
        value = self.add_node(Node.make(op.name, args, **attrs))
        if op.lines:
            self.place_on_lines(args[0], op, attrs)
        return value

    def zero_d_instead(self, op: OpSpec, first: int) -> int:
        """With the config's chance, an op along a dim that takes a 0-d value (`Family.zero_d`) takes one instead of `first`:
        a 0-d value drawn so far, or a new 0-d input of its dtype. Drawn 0-d values are rare otherwise (a 0-d partner's ops)."""
        rng = self.draw("zero_dim_ops")
        if not family_of(op).zero_d or rng.random() >= self.config.zero_dim_ops:
            return first
        drawn = [v for v in self.floats() if not self.specs[v].shape]
        if drawn and rng.random() < 0.5:
            return rng.choice(drawn)
        return self.new_input((), self.specs[first].dtype)

    def pass_scalars(self, op: OpSpec, attrs: dict, spec: TensorSpec) -> None:
        """With the config's chance, the op's scalar attributes become call-time arguments, each with a second value."""
        rng = self.draw("scalar_args")
        if not (op.scalars and rng.random() < self.config.scalar_args):
            return
        passed = [(name, scalar(rng, legal, spec)) for name, legal in op.scalars if isinstance(attrs.get(name), (int, float))]
        if passed:
            attrs[PASSED] = tuple(passed)

    def place_on_lines(self, value: int, op: OpSpec, attrs: dict) -> None:
        """An input compared against scalars gets some of its values placed on the lines they draw (both calls' values)."""
        if not self.is_input[value] or is_integer(self.specs[value].dtype):
            return
        k = sum(self.is_input[: value + 1]) - 1
        seconds = {name: second for name, second in attrs.get(PASSED, ())}
        lines = op.lines(attrs) + op.lines({**attrs, **seconds}) if seconds else op.lines(attrs)
        old = self.recipes[k]
        self.recipes[k] = Recipe(old.kind, old.domain, old.bound, tuple(dict.fromkeys(old.lines + tuple(lines))))

    def seam_motif(self, dtype: str, shape: tuple[int, ...] | None = None) -> None:
        """A seam-sized input (or one of `shape`), and where the ops allow, a reduction along its rows of a pointwise op it may recompute."""
        x = self.new_input(seam_shape(self.draw("seams"), self.config.max_rank, self.widths) if shape is None else shape, dtype)
        allowed = set(self.config.ops)  # in the table's order, whatever order --ops gives
        pointwise = [s for n, s in OPS.items() if s.recomputed and n in allowed]  # `OpSpec.recomputed`, `.consumer`: their weights
        consumers = [s for n, s in OPS.items() if s.consumer and n in allowed]
        rng = self.draw("ops")
        if not pointwise or not consumers or rng.random() < 0.2:
            return
        saved = self.snapshot()
        try:
            inner = self.grow(rng.choices(pointwise, [s.recomputed for s in pointwise])[0], first=x)
            self.grow(rng.choices(consumers, [s.consumer for s in consumers])[0], first=inner, last_dim=True)
        except GraphError:
            self.restore(saved)

    def draw_layouts(self) -> None:
        """With the config's chance, each float input of rank >= 1 gets a strided layout that changes how it sits in memory;
        with another, each float input (0-d ones too) is a view into a larger tensor, on top of any layout (its own stream)."""
        rng, views = self.draw("layouts"), self.draw("views")
        for k, spec in enumerate(self.inputs):
            if not is_integer(spec.dtype) and spec.shape and rng.random() < self.config.layouts:
                self.inputs[k] = spec = spec.with_layout(draw_layout(rng, spec.shape))
            if not is_integer(spec.dtype) and views.random() < self.config.views:
                self.inputs[k] = spec.with_layout(draw_view(views, spec.shape, spec.layout))

    def snapshot(self) -> tuple:
        return list(self.inputs), list(self.recipes), list(self.specs), list(self.nodes), list(self.is_input), set(self.used)

    def restore(self, saved: tuple) -> None:
        self.inputs, self.recipes, self.specs, self.nodes, self.is_input, self.used = (type(x)(x) for x in saved)


def generate(seed: int, config: GenConfig | None = None, widths: str = "cpu") -> tuple[Graph, list[Recipe]]:
    """A random well-typed graph and its input recipes; the same seed gives the same result. `config`: the program space
    (default: `numfuzz fuzz`'s, `GenConfig.default()`); `widths`: whose vector widths and block sizes seam sizes straddle, "cpu" or "cuda"."""
    graph, recipes, _ = generate_with_origin(seed, config, widths)
    return graph, recipes


def generate_from(rng: random.Random, config: GenConfig | None = None, widths: str = "cpu") -> tuple[Graph, list[Recipe]]:
    """As `generate`, drawing every choice from the one stream `rng` (Hypothesis passes its own)."""
    graph, recipes, _ = generate_drawn(GraphStreams(single=rng), config, widths)
    return graph, recipes


def generate_with_origin(seed: int, config: GenConfig | None = None, widths: str = "cpu") -> tuple[Graph, list[Recipe], dict[str, Any]]:
    """As `generate`, with where the graph started: {"zoo": ...} for a window of a real model's graph, else {}."""
    return generate_drawn(CaseAddress(seed).graph_streams(), config, widths)


def generate_drawn(draw: GraphStreams, config: GenConfig | None = None, widths: str = "cpu") -> tuple[Graph, list[Recipe], dict[str, Any]]:
    """The graph, its input recipes and its origin (see `generate_with_origin`), each choice drawn from its stream in `draw`."""
    if widths not in ("cpu", "cuda"):
        raise ValueError(f"seam widths are known for cpu and cuda, not {widths!r}")
    config = config or GenConfig.default()
    large = draw("large").random() < config.large
    block = draw("blocks").random() < config.blocks
    zoo = draw("models").random() < config.models
    empty = draw("empty").random() < config.empty
    fp64 = draw("fp64").random() < config.fp64 and not (large or block or zoo or empty) and bool(float64_space(config).ops)
    config = float64_space(config) if fp64 else config
    integers = draw("integers").random() < config.integers and not (large or block or zoo or fp64) and bool(integer_space(config).ops)
    config = integer_space(config) if integers else config
    odd_tail = draw("odd_tail").random() < config.odd_tail
    b = _Builder(draw, config, widths, LARGE_ELEMENTS if large or block or zoo else SMALL_ELEMENTS)
    b.float64_program = fp64
    dtype = draw("dtype").choices(PROGRAM_DTYPES, DTYPE_WEIGHTS)[0]
    autocast = draw("autocast").random() < config.autocast
    dtype = "fp64" if fp64 else "fp32" if autocast else dtype  # under autocast: a model in fp32 under a bf16 region
    origin = start_from_zoo(b, dtype) if zoo else {}
    from_block = bool(origin) or (block and start_from_block(b, dtype))
    if from_block:
        pass  # the block's inputs and nodes are the start
    elif integers:  # an integer or bool value, and the ops that take one
        b.integer_program = True
        rng = draw("integers")
        shape = odd_tail_shape(rng, config.max_rank) if rng.random() < INTEGER_TAIL else b.random_shape()
        b.new_integer_input(shape, rng.choice(INTEGER_VALUES))
    elif large:  # reductions along a model-sized row, as a norm or a softmax over a hidden size
        b.seam_motif(dtype, large_shape(draw("large")))
    elif draw("seams").random() < config.seams:
        b.seam_motif(dtype)
    else:
        shape = odd_tail_shape(draw("odd_tail"), config.max_rank) if odd_tail else b.random_shape()
        b.new_input(_with_empty_dim(draw("empty"), shape) if empty else shape, dtype)
        b.allow_empty = empty
    _grow_to_size(b, draw, len(b.nodes) + draw("size").randint(0, 3) if from_block else draw("size").randint(config.min_nodes, config.max_nodes))
    if from_block:
        b.nodes = swap_ops(draw("swaps"), b.nodes, lambda nodes: _retyped(b, nodes), allowed=set(config.ops))
    b.draw_layouts()
    graph = _renumber(b)
    return (draw_region(draw("autocast"), graph, infer_specs, autocast_policy, keep_out=kept_out_of_regions) if autocast else graph), b.recipes, origin


def _grow_to_size(b: _Builder, draw: GraphStreams, target: int) -> None:
    """Ops drawn from the config's, by weight, grown onto the graph until it has `target` nodes (or the attempts run out)."""
    ops = [OPS[name] for name in b.config.ops]
    weights = [integer_weight(op) if b.integer_program else op.weight for op in ops]
    for _attempt in range(target * 20):
        if len(b.nodes) >= target:
            break
        saved = b.snapshot()
        try:
            b.grow(draw("ops").choices(ops, weights)[0])
        except GraphError:
            b.restore(saved)
        except (ValueError, ZeroDivisionError, IndexError):  # a drawer of sizes or groups finds none in a 0 dim
            if not b.allow_empty:
                raise
            b.restore(saved)
    if not b.nodes:
        b.add_node(Node.make("neg", [0]))


def integer_space(config: GenConfig) -> GenConfig:
    """Where an integer program is drawn: the config's database ops, with integer forms or float ones to refuse (`program.op_db`)."""
    return replace(config, ops=tuple(o for o in config.ops if in_integer_programs(OPS[o])), mix_dtypes=0.0, seams=0.0, autocast=0.0)


def float64_space(config: GenConfig) -> GenConfig:
    """Where a float64 program is drawn: the ops the fine reference evaluates, one dtype, no seam and no autocast."""
    return replace(config, ops=tuple(o for o in config.ops if o in fine_ops()), mix_dtypes=0.0, seams=0.0, autocast=0.0)


def _with_empty_dim(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with one dim of size 0."""
    dim = rng.randrange(len(shape))
    return shape[:dim] + (0,) + shape[dim + 1 :]


def _retyped(b: _Builder, nodes: list[Node]) -> None:
    """Raises GraphError unless `nodes` (in the builder's numbering: inputs and nodes as made) type-check (a mutation's check)."""
    specs: list[TensorSpec] = []
    made = iter(nodes)
    for value, is_input in enumerate(b.is_input):
        specs.append(b.specs[value] if is_input else infer_node(next(made), specs))


def _renumber(b: _Builder) -> Graph:
    """Inputs were created between nodes; renumber so that inputs come first."""
    order = [i for i, inp in enumerate(b.is_input) if inp] + [i for i, inp in enumerate(b.is_input) if not inp]
    new_index = {old: new for new, old in enumerate(order)}
    nodes = tuple(Node(n.op, tuple(new_index[a] for a in n.args), n.attrs) for n in b.nodes)
    node_values = [i for i, inp in enumerate(b.is_input) if not inp]
    outputs = tuple(new_index[v] for v in node_values if v not in b.used)
    return Graph(tuple(b.inputs), nodes, outputs)
