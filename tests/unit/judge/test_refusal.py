"""A target's own refusal is `unsupported`: decided by where the error is raised and what it says, never by the op."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from numfuzz.judge.refusal import argument_named, own_code, refusal_of


def _raised_in(module: str, exc: BaseException) -> BaseException:
    """`exc` as code of `module` raises it (its traceback's innermost frame is there)."""
    scope = {"__name__": module, "exc": exc}
    try:
        exec("def check():\n    raise exc\ncheck()", scope)
    except BaseException as raised:
        return raised
    raise AssertionError("not raised")


# What Thunder main (0.2.7.dev0, 1e22aac) says, and where, for the programs numfuzz draws (measured with torch 2.11)
THUNDER_MAIN_REFUSALS = [
    ("thunder.core.baseutils", NotImplementedError("only modes 'nearest', 'nearest-exact' and 'bilinear' are supported at the moment, but got mode='bicubic'")),
    ("thunder.core.baseutils", NotImplementedError("Thunder does not yet support 'align_corners'.")),
    ("thunder.core.baseutils", NotImplementedError("{count_include_pad=} is not supported")),
    ("thunder.core.baseutils", NotImplementedError("{ceil_mode=} is not supported")),
    ("thunder.core.baseutils", RuntimeError("Mode arguments other than constant are not supported")),
    ("thunder.core.interpreter", NotImplementedError("Trying to call function torch.promote_types, but it is not yet supported. Please file an issue")),
    ("thunder.torch", NotImplementedError()),  # a bare refusal of a path: the class says it
]
THUNDER_MAIN_CRASHES = [
    ("thunder.core.interpreter", AttributeError("indices")),  # the named tuple's field: a gap, not a refusal
    ("thunder.core.langctxs", TypeError("round() got an unexpected keyword argument 'decimals'")),
    ("thunder.core.transform_common", AssertionError("trying to set .global_var of ProvenanceRecord")),
    ("torch._refs", NotImplementedError("not supported for bf16")),  # torch's refusal underneath: not the target's own
]


@pytest.mark.parametrize("module, exc", THUNDER_MAIN_REFUSALS)
def test_thunder_mains_refusals_are_unsupported(module, exc):
    found = refusal_of(_raised_in(module, exc), ("thunder",))
    assert found is not None and found.raised_in == module
    assert found.message.startswith(type(exc).__name__)


@pytest.mark.parametrize("module, exc", THUNDER_MAIN_CRASHES)
def test_other_errors_and_refusals_raised_elsewhere_stay_crashes(module, exc):
    assert refusal_of(_raised_in(module, exc), ("thunder",)) is None


def test_a_refusal_wrapped_by_dynamo_is_found_inside():
    inner = _raised_in("thunder.core.baseutils", NotImplementedError("{ceil_mode=} is not supported"))
    try:
        try:
            raise inner
        except NotImplementedError as exc:
            raise _raised_in("torch._dynamo.output_graph", RuntimeError("backend='thunder' raised:")) from exc
    except RuntimeError as exc:
        outer = exc
    found = refusal_of(outer, ("thunder",))
    assert found is not None and "ceil_mode" in found.message
    assert refusal_of(outer, ()) is None  # a target without own code refuses nothing


def test_the_argument_a_refusal_names():
    assert argument_named("NotImplementedError: {ceil_mode=} is not supported", {"kernel_size": 2, "ceil_mode": True}) == "ceil_mode=True"
    assert argument_named("only modes 'nearest' are supported, but got mode='bicubic'", {"mode": "bicubic", "scale_factor": 2.0}) == "mode='bicubic'"
    assert argument_named("Thunder does not yet support 'align_corners'.", {"mode": "bilinear", "align_corners": True}) == "align_corners=True"
    assert argument_named("Trying to call function torch.promote_types, but it is not yet supported", {"dim": 1}) == ""


def test_wrappers_name_their_targets_own_code():
    from numfuzz.reduce.minimize import CountingTarget
    from numfuzz.targets import resolve

    assert own_code(CountingTarget(resolve("inductor"))) == ("torch._inductor",)
    assert own_code(resolve("eager")) == ()


THUNDER_PROGRAMS = {
    "interpolate(mode='bicubic')": lambda x: F.interpolate(x, scale_factor=2.0, mode="bicubic"),
    "interpolate(align_corners=True)": lambda x: F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=True),
    "avg_pool2d(count_include_pad=False)": lambda x: F.avg_pool2d(x, 2, padding=1, count_include_pad=False),
    "max_pool2d(ceil_mode=True)": lambda x: F.max_pool2d(x, 2, ceil_mode=True),
}


@pytest.mark.thunder
@pytest.mark.parametrize("name", list(THUNDER_PROGRAMS))
def test_the_installed_thunders_refusals_are_unsupported(name):
    """The quick start's four refusals, on whichever Thunder is installed (0.2.6 in CI; main where a venv has it)."""
    import thunder

    from numfuzz.targets import resolve

    with pytest.raises(Exception) as raised:
        thunder.jit(THUNDER_PROGRAMS[name])(torch.randn(1, 2, 5, 5))
    found = refusal_of(raised.value, own_code(resolve("thunder:torchcompile")))
    assert found is not None and found.raised_in.startswith("thunder"), raised.value


@pytest.mark.thunder
def test_the_installed_thunders_named_tuple_gap_is_a_crash():
    import thunder

    with pytest.raises(AttributeError) as raised:
        thunder.jit(lambda x: torch.max(x, dim=-1, keepdim=True).indices)(torch.randn(3, 4))
    assert refusal_of(raised.value, ("thunder",)) is None


def test_a_database_ops_refused_argument_is_read_from_its_call_form():
    """A database op's node holds its call as text: its keywords are its arguments (bicubic was listed as `nearest`, the
    first quoted word of Thunder's message, before)."""
    from numfuzz.corpus.refusals import call_arguments

    bicubic = call_arguments({"form": "torch.nn.functional.interpolate({0}, (3, 3), scale_factor=None, mode='bicubic', align_corners=True)", "sample": 8})
    assert bicubic == {"scale_factor": None, "mode": "bicubic", "align_corners": True}
    message = "NotImplementedError: only modes 'nearest', 'nearest-exact' and 'bilinear' are supported at the moment, but got mode='bicubic'"
    assert argument_named(message, bicubic) == "mode='bicubic'"
    pool = call_arguments({"form": "torch.nn.functional.max_pool3d({0}, kernel_size=3, stride=2, ceil_mode=True, padding=0)", "sample": 10})
    assert argument_named("NotImplementedError: {ceil_mode=} is not supported", pool) == "ceil_mode=True"
    assert call_arguments({"form": "torch.where({0} > 0, {1}, {2})", "sample": 0}) == {}
    assert call_arguments({"dim": 1}) == {"dim": 1}
