"""The float64 reference of the ops that take integer inputs (class targets, indices), against known values.

The reference is handed its indices either as int64 or, as the analysis hands every input, as
float64 (the reference call takes them back to int64): both must give the same, exact result.
"""

import mpmath
import pytest
import torch

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = ("nll_loss", "cross_entropy_index", "gather", "index_select", "embedding")

mpmath.mp.prec = 100
TOLERANCE = 1e-3  # fp32 ULPs, as in test_reference_values


def reference(op: str, x, index, **attrs) -> torch.Tensor:
    """The op's float64 reference on float64 values and int64 indices; checks the float64-indices path agrees."""
    values, indices = torch.tensor(x, dtype=torch.float64), torch.tensor(index, dtype=torch.int64)
    graph = Graph((TensorSpec(tuple(values.shape), "fp32"), TensorSpec(tuple(indices.shape), "i64")), (Node.make(op, [0, 1], **attrs),), (2,))
    fn = compile_source(lower(graph, reference=True))
    (out,) = fn(values, indices)
    (again,) = fn(values, indices.double())
    assert out.dtype == torch.float64 and torch.equal(out, again)
    return out


def close(got: torch.Tensor, expected) -> None:
    """Within TOLERANCE fp32 ULPs of the exact values (mpf or float)."""
    flat = got.reshape(-1).tolist()
    want = [mpmath.mpf(w) for w in (expected if isinstance(expected, list) else [expected])]
    assert len(flat) == len(want)
    for g, w in zip(flat, want):
        ulp = mpmath.mpf(2) ** (mpmath.floor(mpmath.log(abs(w), 2)) - 23) if w else mpmath.mpf(2) ** -149
        assert abs(mpmath.mpf(g) - w) / ulp <= TOLERANCE, (g, w)


X = [[1.5, -0.25, 3.0, 0.125], [-2.0, 0.5, 7.0, 1e-3], [0.3, 0.3, -0.6, 4.0]]  # 3 x 4


def test_gather_index_select_and_embedding_select_exactly():
    assert reference("gather", X, [[3, 0], [1, 1], [0, 2]], dim=1).tolist() == [[0.125, 1.5], [0.5, 0.5], [0.3, -0.6]]
    assert reference("gather", X, [[2, 0, 1, 0]], dim=0).tolist() == [[0.3, -0.25, 7.0, 0.125]]
    assert reference("index_select", X, [2, 2, 0], dim=0).tolist() == [X[2], X[2], X[0]]
    assert reference("index_select", X, [1], dim=-1).tolist() == [[-0.25], [0.5], [0.3]]
    assert reference("embedding", X, [[1, 0], [2, 2]]).tolist() == [[X[1], X[0]], [X[2], X[2]]]


def _log_softmax(row):
    lse = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(v)) for v in row))
    return [mpmath.mpf(v) - lse for v in row]


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_picks_minus_the_target_class(reduction):
    targets = [3, 0, 2]
    terms = [-mpmath.mpf(row[t]) for row, t in zip(X, targets)]
    expected = terms if reduction == "none" else mpmath.fsum(terms) if reduction == "sum" else mpmath.fsum(terms) / 3
    close(reference("nll_loss", X, targets, reduction=reduction, ignore_index=-100), expected)


def test_nll_loss_leaves_out_the_ignored_class():
    targets = [1, 0, 1]  # rows 0 and 2 ignored: the mean is over row 1 alone
    close(reference("nll_loss", X, targets, reduction="mean", ignore_index=1), 2.0)
    assert reference("nll_loss", X, targets, reduction="none", ignore_index=1).tolist() == [0.0, 2.0, 0.0]
    close(reference("nll_loss", X[0], 2, reduction="sum", ignore_index=-100), -3.0)  # one unbatched row, a 0-d target


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_with_class_indices_is_exact(smoothing):
    targets, eps = [3, 0, 2], mpmath.mpf(smoothing)
    per_row = []
    for row, t in zip(X, targets):
        logp = _log_softmax(row)
        per_row.append(-(1 - eps) * logp[t] - eps / 4 * mpmath.fsum(logp))
    close(reference("cross_entropy_index", X, targets, reduction="none", label_smoothing=smoothing, ignore_index=-100), per_row)
    close(reference("cross_entropy_index", X, targets, reduction="mean", label_smoothing=smoothing, ignore_index=-100), mpmath.fsum(per_row) / 3)
    ignored = reference("cross_entropy_index", X, targets, reduction="mean", label_smoothing=smoothing, ignore_index=0)
    close(ignored, (per_row[0] + per_row[2]) / 2)  # row 1's target is the ignored class
