"""matmul_batched's float64 reference against exact sums of products (Fractions) over broadcast batch dims: a 4-d
first operand against a 3-d second, and a 2-d first against a 4-d second."""

import random
from fractions import Fraction

import numpy as np
import pytest
from test_reference_values import assert_exact, f32, reference

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = ("matmul_batched",)


def _operand(rng: random.Random, shape: tuple) -> np.ndarray:
    return np.array(f32([rng.uniform(-4, 4) for _ in range(int(np.prod(shape)))]), dtype=float).reshape(shape)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 1, 3, 5), (4, 5, 2)), ((3, 6), (2, 2, 6, 3)), ((6,), (2, 6, 4))])
def test_each_element_is_the_exact_sum_of_its_products(a_shape, b_shape):
    rng = random.Random(str((a_shape, b_shape)))
    a, b = _operand(rng, a_shape), _operand(rng, b_shape)
    a4 = a.reshape((1,) * (4 - max(a.ndim, 2)) + (a.shape if a.ndim > 1 else (1,) + a.shape))  # a 1-d first is a row
    b4 = b.reshape((1,) * (4 - b.ndim) + b.shape)
    batch = np.broadcast_shapes(a4.shape[:2], b4.shape[:2])
    a4, b4 = np.broadcast_to(a4, batch + a4.shape[2:]), np.broadcast_to(b4, batch + b4.shape[2:])
    k = a4.shape[-1]
    want = [
        [
            [[sum(Fraction(a4[i, j, r, t]) * Fraction(b4[i, j, t, c]) for t in range(k)) for c in range(b4.shape[-1])] for r in range(a4.shape[2])]
            for j in range(batch[1])
        ]
        for i in range(batch[0])
    ]
    got = reference("matmul_batched", a.tolist(), b.tolist())
    assert got.numel() == np.asarray(want, dtype=object).size
    assert_exact(got, [float(v) for v in np.asarray(want, dtype=object).reshape(-1)])
