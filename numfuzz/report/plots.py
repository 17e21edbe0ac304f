"""Figures as SVG text, drawn with matplotlib's Agg backend on Figure objects (never pyplot, never a display).

SVG keeps text as text (small, selectable) and a fixed hash salt keeps the output identical
from run to run. Every function takes plain data from `numfuzz.report.data`.
"""

from __future__ import annotations

import io
import math
import re

import matplotlib

matplotlib.use("Agg")  # a report is made on machines without a display

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402

from numfuzz.program.dtypes import check_dtype  # noqa: E402
from numfuzz.report.data import RunRate, Sweep  # noqa: E402

ULP_FLOOR = 1e-2  # log axes cannot show 0: smaller errors are drawn on this line
EAGER, TARGET = "#1f77b4", "#d62728"
RC = {"svg.fonttype": "none", "svg.hashsalt": "numfuzz", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3}


def to_svg(fig: Figure) -> str:
    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]  # the XML prolog and doctype are not wanted inside a page
    return re.sub(r">\s+<", "><", text)  # indentation is a tenth of the file


def _figure(width: float, height: float) -> Figure:
    with matplotlib.rc_context(RC):
        return Figure(figsize=(width, height), layout="constrained")


def _floored(values: list[float]) -> list[float]:
    return [max(v, ULP_FLOOR) if math.isfinite(v) else math.nan for v in values]


def sweep_svg(sweep: Sweep, title: str = "") -> str:
    """Per-point error (ULPs, log) of eager and of the target, against input magnitude and against |reference|."""
    points = sweep.points
    fmt = check_dtype(sweep.dtype)
    with matplotlib.rc_context(RC):
        fig = _figure(8.4, 3.2)
        axes = fig.subplots(1, 2, sharey=True)
        xs = {
            "input magnitude  max |x| over the inputs": [p.input_magnitude for p in points],
            f"|reference| of output {sweep.output}": [abs(p.reference) for p in points],
        }
        eager, target = [p.eager_ulp for p in points], [p.target_ulp for p in points]
        finite_top = max([v for v in eager + target if math.isfinite(v)] + [1.0])
        top = 10 ** math.ceil(math.log10(max(finite_top, 1.0)) + 0.5)
        for ax, (label, x) in zip(axes, xs.items()):
            keep = [i for i, v in enumerate(x) if v > 0]
            xk = [x[i] for i in keep]
            ax.plot(xk, _floored([eager[i] for i in keep]), "o-", color=EAGER, ms=3.5, lw=1, label="eager")
            ax.plot(xk, _floored([target[i] for i in keep]), "s-", color=TARGET, ms=3.5, lw=1, label=f"target ({_short(title)})")
            tiny = [i for i in keep if abs(points[i].reference) < 2.0**fmt.min_exponent]  # ULPs are fixed-size there
            for values, color, marker in ((eager, EAGER, "o"), (target, TARGET, "s")):
                ax.plot([x[i] for i in tiny], _floored([values[i] for i in tiny]), marker, color=color, mfc="white", ms=3.5)
            blown = [x[i] for i in keep if not math.isfinite(target[i])]
            if blown:
                ax.plot(blown, [top] * len(blown), "x", color=TARGET, ms=7, mew=1.5, label="target non-finite")
            swept = [x[i] for i in keep if points[i].exponent == 0]
            for value in swept:
                ax.axvline(value, color="0.4", ls=":", lw=1)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.yaxis.set_minor_locator(NullLocator())  # a tick per decade reads well; minor ones double the SVG
            ax.set_xlabel(label)
            ax.set_ylim(ULP_FLOOR / 2, top * 2)
        axes[1].axvspan(2.0**-60, 2.0**fmt.min_exponent, color="0.85", alpha=0.5, lw=0, label=f"{sweep.dtype} subnormal")
        lows = [abs(p.reference) for p in points if p.reference]
        if lows:
            axes[1].set_xlim(min(lows) / 2, max(lows) * 2)
        axes[0].set_ylabel(f"error (ULPs of {sweep.dtype}), log")
        axes[0].legend(loc="best", fontsize=8, framealpha=0.8)
        fig.suptitle(
            f"output {sweep.output}, element {sweep.element} of sample {sweep.sample}, inputs scaled by $2^k$ (dotted: the case as found; hollow: output subnormal)",
            fontsize=9,
        )
        return to_svg(fig)


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def coverage_svg(coverage: dict[str, dict[str, int]], all_ops: list[str]) -> str:
    """Cases per op, one bar per target; ops never drawn are labelled in red."""
    targets = list(coverage)
    ops = sorted(set(all_ops) | {op for counts in coverage.values() for op in counts})
    with matplotlib.rc_context(RC):
        fig = _figure(8.4, 2.8)
        ax = fig.subplots()
        width = 0.8 / max(1, len(targets))
        for t, target in enumerate(targets):
            offsets = [i + (t - (len(targets) - 1) / 2) * width for i in range(len(ops))]
            ax.bar(offsets, [coverage[target].get(op, 0) for op in ops], width=width, label=target)
        ax.set_xticks(range(len(ops)), ops, rotation=90, fontsize=7)
        for tick, op in zip(ax.get_xticklabels(), ops):
            if not any(counts.get(op) for counts in coverage.values()):
                tick.set_color("#c00000")
        ax.set_xlim(-0.6, len(ops) - 0.4)
        ax.set_ylabel("cases")
        ax.grid(axis="x", visible=False)
        if targets:
            ax.legend(loc="upper right", fontsize=8)
        return to_svg(fig)


def rate_svg(rates: list[RunRate]) -> str:
    """Graphs per minute over each run (one line per campaign run)."""
    with matplotlib.rc_context(RC):
        fig = _figure(8.4, 2.6)
        ax = fig.subplots()
        for rate in rates:
            ax.plot(rate.minutes, rate.graphs_per_min, "o-", ms=3, lw=1.2, label=rate.label)
        ax.set_xlabel("minutes since the run started")
        ax.set_ylabel("graphs / min")
        ax.set_ylim(bottom=0)
        if rates:
            ax.legend(loc="best", fontsize=8)
        return to_svg(fig)
