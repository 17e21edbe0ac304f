#!/usr/bin/env python3
"""Rerun the survey of upstream numerics and correctness bugs: can a default campaign draw each one's program?

    python scripts/upstream_reach.py > runs/upstream-reach.md

Three surveys: 26 bugs of 2025-2026 (`FIRST_SURVEY`), bugs reported in 2026 (`SURVEY_2026`), CPU
Inductor first, and CPU bugs of 2026 searched for by symptom rather than by the ops numfuzz draws
(`SURVEY_2026_SYMPTOMS`), each reduced to its program.

Each row of the survey (docs/upstream.md, "What the surveyed bugs need") names the ops, the shares
and the program features its program needs. A row is expressible when every op is in the table,
every share it needs is on by default (`numfuzz fuzz`'s defaults), and no limit of the program space
rules it out (sizes past a value's largest, dtypes numfuzz does not draw); a CUDA-only row counts when
its program can be drawn. Each need is printed with where it lives, file:line, found in the tree,
so a row whose op or option has moved or gone says so instead of passing. A need that is not in the
tree yet is named as it would be (an op by its table name, a share by its field, a feature by the file
and definition that would hold it), so the row turns to yes once that lands.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from numfuzz.program.dtypes import INT_DTYPES, PROGRAM_DTYPES
from numfuzz.program.model_scale import LARGE_ELEMENTS
from numfuzz.program.op_db.family import INTEGER_VALUES
from numfuzz.program.ops import OPS
from numfuzz.share_table import SHARES

sys.path.insert(0, str(Path(__file__).resolve().parent))
from upstream_rows import FIRST_SURVEY, ROWS, SURVEY_2026, SURVEY_2026_SYMPTOMS, Row  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = {share.field: share.default for share in SHARES}


def locate(path: str, pattern: str) -> str | None:
    """path:line of the first line matching `pattern`, or None."""
    file = ROOT / path
    if not file.exists():
        return None
    for number, line in enumerate(file.read_text().splitlines(), 1):
        if re.search(pattern, line):
            return f"{path}:{number}"
    return None


def op_place(name: str) -> str | None:
    """Where the op's entry is: a database op's in the snapshot, with its forms; else the line of the op table holding
    its call, else the first line naming it."""
    if name.startswith("db."):
        from numfuzz.program.op_db.family import FORMS

        found = locate("numfuzz/data/op_db.json", re.escape(f'"name":"{name}"'))
        return f"{found} ({len(FORMS.get(name, ()))} forms)" if found else None
    modules = sorted((ROOT / "numfuzz/program/op_table").glob("*.py"))
    call = OPS[name].call if name in OPS else ""
    patterns = ([re.escape(call)] if call else []) + [rf'"{re.escape(name)}"']
    for pattern in patterns:  # a name alone may first appear in another op's list (losses name "sum")
        for module in modules:
            found = locate(str(module.relative_to(ROOT)), pattern)
            if found:
                return found
    return None


def judge(row: Row) -> tuple[bool, list[str], list[str]]:
    """Whether the row is expressible by default, where each need lives, and what is missing."""
    places, missing = [], []
    for op in row.ops:
        place = op_place(op) if op in OPS else None
        (places if place else missing).append(f"`{op}` {place}" if place else f"no op `{op}`")
    for share in row.shares:
        default = DEFAULTS.get(share)
        where = locate("numfuzz/share_table.py", rf'"{share}", ')
        if default:
            places.append(f"`{share}` {default} ({where})")
        else:
            missing.append(f"share `{share}` off by default ({where})" if share in DEFAULTS else f"no share `{share}`")
    for path, pattern in row.where:
        place = locate(path, pattern)
        (places if place else missing).append(place or f"nothing matches {pattern!r} in {path}")
    if row.elements > LARGE_ELEMENTS:
        missing.append(f"{row.elements:.2e} elements, past a value's {LARGE_ELEMENTS} ({locate('numfuzz/program/model_scale.py', '^LARGE_ELEMENTS')})")
    for dtype in row.dtypes:
        if "integers" in row.shares:  # an integer program's value: drawn in the dtypes the databases' integer forms take
            ok = dtype in INTEGER_VALUES
            where = locate("numfuzz/program/op_db/family.py", "^INTEGER_VALUES")
            (places if ok else missing).append(f"`{dtype}` integer programs ({where})" if ok else f"no {dtype} integer programs ({where})")
        elif dtype in INT_DTYPES:
            places.append(f"`{dtype}` inputs ({locate('numfuzz/program/dtypes.py', '^INT_DTYPES')})")
        elif dtype.startswith(("i", "u")):  # an integer dtype is an input's (indices, exponents), never a program's
            missing.append(f"{dtype} inputs are not drawn ({locate('numfuzz/program/dtypes.py', '^INT_DTYPES')})")
        elif dtype == "fp64":  # a float64 program: drawn at its share, over the ops the fine reference evaluates, with no gradients
            missing += _float64_missing(row)
            if not _float64_missing(row):
                share = locate("numfuzz/share_table.py", '"fp64", ')
                places.append(f"`fp64` {DEFAULTS.get('fp64')} ({share}); {locate('numfuzz/program/fine.py', '^def fine_ops')}")
        elif dtype not in PROGRAM_DTYPES:
            missing.append(f"{dtype} programs are not drawn ({locate('numfuzz/program/dtypes.py', '^PROGRAM_DTYPES')})")
    return not missing, places, missing


def _float64_missing(row: Row) -> list[str]:
    """What keeps a float64 row out of the float64 programs numfuzz draws."""
    from numfuzz.program.fine import fine_ops

    where = locate("numfuzz/program/fine.py", "^def fine_ops")
    missing = [f"`{op}` has no reference finer than float64 ({where})" for op in row.ops if op in OPS and op not in fine_ops()]
    if not DEFAULTS.get("fp64"):
        missing.append("share `fp64` off by default")
    if "grad_share" in row.shares:
        missing.append(f"a float64 program's gradients are not judged ({locate('numfuzz/corpus/make.py', 'run.grad and fine')})")
    return missing


def table(rows: list[Row]) -> int:
    """Print the rows as a markdown table; how many are expressible by default."""
    print("| issue | the program needs | by default | how numfuzz draws it | missing |")
    print("| --- | --- | --- | --- | --- |")
    expressible = 0
    for row in rows:
        ok, places, missing = judge(row)
        expressible += ok
        print(f"| {row.issue} | {row.needs} | {'yes' if ok else 'no'} | {'; '.join(places)} | {'; '.join(missing)} |")
    return expressible


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # no options: --help, and one line for a stray argument
    first = table(FIRST_SURVEY)
    print(f"\n{first} of {len(FIRST_SURVEY)} expressible by default.\n")
    recent = table(SURVEY_2026)
    print(f"\n{recent} of {len(SURVEY_2026)} expressible by default.\n")
    symptoms = table(SURVEY_2026_SYMPTOMS)
    print(f"\n{symptoms} of {len(SURVEY_2026_SYMPTOMS)} expressible by default.")
    total = first + recent + symptoms
    print(f"\nOver all {len(ROWS)} rows: {total} expressible by default ({100 * total / len(ROWS):.0f}%).")
    sys.exit(0)


if __name__ == "__main__":
    main()
