"""Why fp64 programs are not drawn (docs/ops.md): torch's float64 kernels and Inductor's fp64 code against mpmath, and mpmath's cost.

Usage: python scripts/fp64_reference.py [POINTS]   (CPU; compiles one Inductor kernel per op)
"""

import math
import sys
import time

import mpmath
import numpy as np
import torch

mpmath.mp.prec = 120
rng = np.random.default_rng(0)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
OPS = {
    "exp": (torch.exp, mpmath.exp, lambda: rng.uniform(-700, 700, N)),
    "log": (torch.log, mpmath.log, lambda: 10 ** rng.uniform(-300, 300, N)),
    "sin": (torch.sin, mpmath.sin, lambda: rng.uniform(-1e4, 1e4, N)),
    "tanh": (torch.tanh, mpmath.tanh, lambda: rng.normal(0, 3, N)),
    "erf": (torch.erf, mpmath.erf, lambda: rng.normal(0, 2, N)),
    "expm1": (torch.expm1, mpmath.expm1, lambda: rng.normal(0, 1, N) * 10.0 ** rng.uniform(-8, 2, N)),
    "log1p": (torch.log1p, mpmath.log1p, lambda: 10.0 ** rng.uniform(-10, 5, N)),
    "sigmoid": (torch.sigmoid, lambda v: 1 / (1 + mpmath.exp(-v)), lambda: rng.normal(0, 10, N)),
    "lgamma": (torch.lgamma, mpmath.loggamma, lambda: rng.uniform(0.1, 100, N)),
    "atan": (torch.atan, mpmath.atan, lambda: rng.normal(0, 10, N)),
}


def ulps(got, exact):
    out = []
    for g, e in zip(got, exact):
        e = mpmath.mpf(e)
        if e == 0:
            out.append(0.0 if g == 0 else math.inf)
            continue
        _, ex = math.frexp(float(abs(e)))
        out.append(float(abs(mpmath.mpf(g) - e) / mpmath.mpf(2) ** (ex - 53)))
    return np.array(out)


print(f"{'op':<8}{'eager max':>10}{'eager>0.5':>10}{'ind max':>9}{'ind vs eager differ':>20}{'ind>1 & eager<=0.5':>20}")
mp_time, mp_evals = 0.0, 0
for name, (tfn, mfn, draw) in OPS.items():
    x = torch.from_numpy(draw())
    start = time.perf_counter()
    exact = [mfn(mpmath.mpf(float(v))) for v in x]
    mp_time, mp_evals = mp_time + time.perf_counter() - start, mp_evals + N
    eager = tfn(x)
    torch._dynamo.reset()
    ind = torch.compile(lambda v, f=tfn: f(v))(x)
    e, i = ulps(eager.tolist(), exact), ulps(ind.tolist(), exact)
    differ = float((eager != ind).double().mean())
    print(f"{name:<8}{e.max():>10.3g}{(e > 0.5).mean():>10.2%}{i.max():>9.3g}{differ:>20.2%}{int(((i > 1) & (e <= 0.5)).sum()):>20}")
print(f"mpmath at {mpmath.mp.prec} bits: {1e6 * mp_time / mp_evals:.1f} us per element and op")
print(f"numpy longdouble: {np.finfo(np.longdouble).nmant} explicit mantissa bits")
