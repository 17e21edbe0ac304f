#!/usr/bin/env python3
"""How much of each zoo model the op table maps: per model and step, its floating calls, how many map, the share,
and the floating calls with no op, from the coverage `scripts/model_zoo` recorded in numfuzz/data/zoo/.

    python scripts/zoo_coverage.py              # a Markdown table
    python scripts/zoo_coverage.py --min 0.9    # and exit 1 where a model maps less than 90% of its floating calls

A floating call is one whose result is a floating tensor (integer and mask calls, positions and attention masks, are
left out); it maps where the op table has an op for it or it passes its argument's values through (`.contiguous()`,
a split whose pieces are slices). Run `scripts/model_zoo` first to capture the models again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numfuzz.model.coverage import Coverage  # noqa: E402

ZOO = ROOT / "numfuzz" / "data" / "zoo"


def rows(zoo: Path) -> list[tuple[str, str, Coverage]]:
    """(model, step, coverage) of every zoo graph, by name."""
    found = []
    for path in sorted(zoo.glob("*.json")):
        data = json.loads(path.read_text())
        found.append((path.stem.rsplit("-", 1)[0], str(data["step"]), Coverage.from_json(data["coverage"])))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=Path, default=ZOO, help="the folder of zoo graphs (default: the package's)")
    parser.add_argument("--min", type=float, default=0.0, help="exit 1 where a model's share is below this (0.9: 90%%)")
    args = parser.parse_args()
    if not args.zoo.is_dir():
        print(f"zoo_coverage: {args.zoo}: no such folder", file=sys.stderr)
        return 2
    print("| model | step | floating calls | mapped | share | floating calls with no op |\n| --- | --- | --- | --- | --- | --- |")
    low = []
    for model, step, c in rows(args.zoo):
        missing = ", ".join(f"{k} x{v}" if v > 1 else k for k, v in c.missing.most_common()) or "-"
        print(f"| {model} | {step} | {c.floating} | {c.mapped + c.passed} | {c.share:.0%} | {missing} |")
        if c.share < args.min:
            low.append(f"{model}-{step}")
    if low:
        print(f"below {args.min:.0%}: {', '.join(low)}", file=sys.stderr)
    return 1 if low else 0


if __name__ == "__main__":
    raise SystemExit(main())
