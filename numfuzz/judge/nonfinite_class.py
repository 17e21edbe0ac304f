"""Non-finite agreement: the elements where eager and the float64 reference agree on a non-finite class and the target does not.

The ULP rule (`judge.oracle`) leaves out every element whose reference is non-finite: no ULP measures
it. Where eager and the reference agree on its class, NaN, +inf or -inf, the program computes that
class, and a target that gives a finite value there or another class (NaN for +inf, -inf for +inf)
loses it: the verdict `nonfinite_class`. A NaN's sign is no class: IEEE 754 does not interpret it
(pytorch#189808). Where eager and the reference disagree, the element stays left out, as before.
"""

from __future__ import annotations

import numpy as np

FINITE, NAN, POS_INF, NEG_INF = 0, 1, 2, 3  # each element's class
CLASS_NAMES = ("finite", "NaN", "+inf", "-inf")


def classes(x: np.ndarray) -> np.ndarray:
    """Each element's class: FINITE, NAN, POS_INF or NEG_INF."""
    found = np.zeros(x.shape, np.int8)
    found[np.isnan(x)] = NAN
    found[x == np.inf] = POS_INF
    found[x == -np.inf] = NEG_INF
    return found


def class_lost(reference: np.ndarray, eager: np.ndarray, target: np.ndarray, e_reference: np.ndarray | None = None) -> np.ndarray:
    """Where the reference and eager (and eager's own reference, where another: a local check's) agree on a non-finite
    class and the target gives a finite value or another class."""
    ref = classes(reference)
    agreed = (ref != FINITE) & (classes(eager) == ref)
    if e_reference is not None and e_reference is not reference:
        agreed &= classes(e_reference) == ref
    return agreed & (classes(target) != ref)


def class_changes(reference: np.ndarray, target: np.ndarray) -> dict[str, int]:
    """Elements counted by the class the program computes and the one the target gave instead: {"NaN -> finite": 3}."""
    pairs = classes(reference).astype(np.int16) * 4 + classes(target)
    codes, counts = np.unique(pairs, return_counts=True)
    return {f"{CLASS_NAMES[c // 4]} -> {CLASS_NAMES[c % 4]}": int(n) for c, n in zip(codes, counts)}


def kinds_text(changes: dict[str, int]) -> str:
    """The changes, most first: `3 NaN -> finite, 1 +inf -> NaN`."""
    return ", ".join(f"{n} {kind}" for kind, n in sorted(changes.items(), key=lambda item: (-item[1], item[0])))


def changes_text(changes: dict[str, int]) -> str:
    """The changes in a sentence: `4 elements where eager and float64 agree on a non-finite class and the target does not: 3 NaN -> finite, ...`."""
    total = sum(changes.values())
    return f"{total} element{'s' * (total != 1)} where eager and float64 agree on a non-finite class and the target does not: {kinds_text(changes)}"
