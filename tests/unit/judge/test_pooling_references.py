"""The float64 references of pooling and interpolation against values computed by hand at 100 bits: window maxima and
means (padding, ceil_mode, count_include_pad), adaptive windows, and nearest, bilinear and bicubic interpolation."""

import math

import mpmath
import pytest
from test_reference_values import assert_exact, f32, reference

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = ("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "interpolate")

# (1, 2, 3, 4): two channels of 3 x 4, values of one sign per window so that no mean cancels
IMAGE = [[f32([0.5, 1.25, 3.0, 0.1]), f32([2.0, 0.1, 0.7, 1.5]), f32([1.0, 0.3, 2.0, 4.0])], [f32([-0.25, -0.5, -7.0, -3.0])] * 3]
H, W = 3, 4
PAD = object()  # a padded position


def _at(c: int, i: int, j: int):
    return mpmath.mpf(IMAGE[c][i][j]) if 0 <= i < H and 0 <= j < W else PAD


def _starts(size: int, kernel: int, stride: int, padding: int, ceil_mode: bool) -> list[int]:
    """Each window's first position (padding included), as torch's pooling_output_shape counts them."""
    span = size + 2 * padding - kernel + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return [o * stride - padding for o in range(out)]


def _pooled(fn, kernel: int, stride: int, padding: int, ceil_mode: bool):
    rows, cols = _starts(H, kernel, stride, padding, ceil_mode), _starts(W, kernel, stride, padding, ceil_mode)
    return [[[[fn(c, r, s) for s in cols] for r in rows] for c in range(2)]]


@pytest.mark.parametrize("kernel, stride, padding, ceil_mode", [(2, 2, 0, False), (3, 1, 1, False), (2, 2, 1, True), (3, 2, 0, True)])
def test_max_pool2d_reference_is_the_window_maximum(kernel, stride, padding, ceil_mode):
    def window_max(c, r, s):
        return max(v for a in range(kernel) for b in range(kernel) if (v := _at(c, r + a, s + b)) is not PAD)

    want = _pooled(window_max, kernel, stride, padding, ceil_mode)
    got = reference("max_pool2d", [IMAGE], kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode)
    assert_exact(got, want)


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("kernel, stride, padding, ceil_mode", [(2, 2, 0, False), (3, 1, 1, False), (2, 2, 1, True), (3, 2, 1, True)])
def test_avg_pool2d_reference_is_the_hand_mean(kernel, stride, padding, ceil_mode, count_include_pad):
    """The divisor: the window within the padded input (count_include_pad) or within the input; a ceil_mode window
    past the padding counts neither."""

    def window_mean(c, r, s):
        inside = [(a, b) for a in range(r, r + kernel) for b in range(s, s + kernel) if -padding <= a < H + padding and -padding <= b < W + padding]
        values = [v for a, b in inside if (v := _at(c, a, b)) is not PAD]
        return mpmath.fsum(values) / (len(inside) if count_include_pad else len(values))

    want = _pooled(window_mean, kernel, stride, padding, ceil_mode)
    got = reference("avg_pool2d", [IMAGE], kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad)
    assert_exact(got, want)


@pytest.mark.parametrize("output_size", [(1, 1), (2, 3), (3, 4), (2, None)])
def test_adaptive_avg_pool2d_reference_is_the_mean_of_each_adaptive_window(output_size):
    """Window o of n over a length L spans [floor(o L / n), ceil((o + 1) L / n)): unequal lengths that overlap."""
    oh, ow = (s if s is not None else n for s, n in zip(output_size, (H, W)))

    def window(o: int, n: int, length: int) -> range:
        return range(o * length // n, -(-(o + 1) * length // n))

    want = [
        [
            [
                [
                    mpmath.fsum(_at(c, a, b) for a in window(i, oh, H) for b in window(j, ow, W)) / (len(window(i, oh, H)) * len(window(j, ow, W)))
                    for j in range(ow)
                ]
                for i in range(oh)
            ]
            for c in range(2)
        ]
    ]
    assert_exact(reference("adaptive_avg_pool2d", [IMAGE], output_size=output_size), want)


def _source(dst: int, size: int, out: int, align_corners: bool, cubic: bool, factor=None):
    """The input position an output position reads (area_pixel_compute_scale and _source_index): a given scale factor
    sets the step, 1 / factor, rather than size / out; a linear position is clamped at 0."""
    if align_corners:
        return mpmath.mpf(dst) * (size - 1) / (out - 1) if out > 1 else mpmath.mpf(0)
    step = 1 / mpmath.mpf(factor) if factor is not None else mpmath.mpf(size) / out
    src = (dst + mpmath.mpf(0.5)) * step - mpmath.mpf(0.5)
    return src if cubic else max(src, mpmath.mpf(0))


def _bilinear(c: int, y, x):
    i0, j0 = int(mpmath.floor(y)), int(mpmath.floor(x))
    i1, j1 = min(i0 + 1, H - 1), min(j0 + 1, W - 1)
    ly, lx = y - i0, x - j0
    return (1 - ly) * ((1 - lx) * _at(c, i0, j0) + lx * _at(c, i0, j1)) + ly * ((1 - lx) * _at(c, i1, j0) + lx * _at(c, i1, j1))


def _cubic_weights(t):
    """Keys' cubic convolution with A = -0.75 (torch's), at the four taps around a position t past the first inner one."""
    a = mpmath.mpf(-0.75)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bicubic(c: int, y, x):
    i, j = int(mpmath.floor(y)), int(mpmath.floor(x))
    wy, wx = _cubic_weights(y - i), _cubic_weights(x - j)

    def clamped(a, b):
        return _at(c, min(max(a, 0), H - 1), min(max(b, 0), W - 1))

    return mpmath.fsum(wy[p] * wx[q] * clamped(i - 1 + p, j - 1 + q) for p in range(4) for q in range(4))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("size, factors", [((5, 7), None), ((2, 3), None), ((4, 5), (1.5, 1.25))])
def test_interpolate_reference_is_the_hand_interpolation(mode, align_corners, size, factors):
    """By a size, or by scale factors of 1.5 and 1.25 (pytorch#185509's), whose output 4 x 5 steps by 1 / factor."""
    at = _bilinear if mode == "bilinear" else _bicubic
    cubic = mode == "bicubic"
    fy, fx = factors or (None, None)

    def value(c, i, j):
        return at(c, _source(i, H, size[0], align_corners, cubic, fy), _source(j, W, size[1], align_corners, cubic, fx))

    want = [[[[value(c, i, j) for j in range(size[1])] for i in range(size[0])] for c in range(2)]]
    by = {"size": None, "scale_factor": factors} if factors else {"size": size, "scale_factor": None}
    assert_exact(reference("interpolate", [IMAGE], mode=mode, align_corners=align_corners, **by), want)


def test_bilinear_interpolation_with_aligned_corners_by_hand():
    """One row 0.5, 1.25, 3.0, 0.1 stretched to 7 with aligned corners: the ends kept, every second value a midpoint."""
    got = reference("interpolate", [[IMAGE[0][:1]]], mode="bilinear", align_corners=True, size=(1, 7), scale_factor=None)
    a, b, c, d = (mpmath.mpf(v) for v in IMAGE[0][0])
    assert_exact(got, [[[[a, (a + b) / 2, b, (b + c) / 2, c, (c + d) / 2, d]]]])


def test_nearest_by_a_scale_factor_of_two_repeats_each_value_twice_each_way():
    got = reference("interpolate", [IMAGE], mode="nearest", align_corners=None, size=None, scale_factor=2.0)
    assert_exact(got, [[[[_at(c, i // 2, j // 2) for j in range(2 * W)] for i in range(2 * H)] for c in range(2)]])
    got = reference("interpolate", [IMAGE], mode="nearest", align_corners=None, size=(2, 7), scale_factor=None)
    assert_exact(got, [[[[_at(c, math.floor(i * H / 2), math.floor(j * W / 7)) for j in range(7)] for i in range(2)] for c in range(2)]])
