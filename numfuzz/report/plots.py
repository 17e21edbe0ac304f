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
    """Per-point error (ULPs, log) of eager and of the target, against input magnitude and against |reference|.

    Exact copies of the case (whole exponents) are joined by lines; steps between octaves are faint
    dots, a cloud whose upper edge shows the error an ordinary input would get.
    """
    points = sweep.points
    subnormal = 2.0 ** check_dtype(sweep.dtype).min_exponent
    finite = [v for p in points for v in (p.eager_ulp, p.target_ulp) if math.isfinite(v)]
    top = 10 ** math.ceil(math.log10(max(finite + [1.0])) + 0.5)
    with matplotlib.rc_context(RC):
        fig = _figure(8.4, 3.3)
        axes = fig.subplots(1, 2, sharey=True)
        panels = (
            (axes[0], lambda p: p.input_magnitude, "input magnitude: max |x| over the inputs"),
            (axes[1], lambda p: abs(p.reference), f"|reference| of output {sweep.output}"),
        )
        for ax, x_of, label in panels:
            shown = [p for p in points if x_of(p) > 0]  # log axes: a zero has no place
            exact = [p for p in shown if p.exact]
            between = [p for p in shown if not p.exact]
            for who, color, marker in (("eager", EAGER, "o"), ("target", TARGET, "s")):
                name = "eager" if who == "eager" else f"target ({_short(title)})"
                ax.plot([x_of(p) for p in between], _floored([getattr(p, f"{who}_ulp") for p in between]), marker, color=color, ms=3, mew=0, alpha=0.5)
                ax.plot([x_of(p) for p in exact], _floored([getattr(p, f"{who}_ulp") for p in exact]), f"{marker}-", color=color, ms=3.5, lw=1, label=name)
                tiny = [p for p in exact if abs(p.reference) < subnormal]  # ULPs are fixed-size there
                ax.plot([x_of(p) for p in tiny], _floored([getattr(p, f"{who}_ulp") for p in tiny]), marker, color=color, mfc="white", ms=3.5)
            blown = [x_of(p) for p in shown if not math.isfinite(p.target_ulp)]
            if blown:
                ax.plot(blown, [top] * len(blown), "x", color=TARGET, ms=6, mew=1.3, label="target non-finite")
            for p in exact:
                if p.exponent == 0:
                    ax.axvline(x_of(p), color="0.4", ls=":", lw=1)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.yaxis.set_minor_locator(NullLocator())  # a tick per decade reads well; minor ones double the SVG
            ax.set_xlabel(label)
            ax.set_ylim(ULP_FLOOR / 2, top * 2)
        axes[1].axvspan(2.0**-200, subnormal, color="0.85", alpha=0.5, lw=0)
        references = [abs(p.reference) for p in points if p.reference]
        if references:
            axes[1].set_xlim(min(references) / 2, max(references) * 2)
        axes[0].set_ylabel(f"error (ULPs of {sweep.dtype}), log")
        axes[0].legend(loc="best", fontsize=7.5, framealpha=0.8)
        fig.suptitle(
            f"output {sweep.output}, element {sweep.element}: inputs times $2^k$; lines: whole k (dotted: k = 0, the case), "
            f"dots: steps between; hollow, grey: {sweep.dtype} output subnormal",
            fontsize=8.5,
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


def reach_svg(trends: dict[str, list[tuple[int, float, int, int]]], by_op: dict[str, int], top: int = 25) -> str:
    """Compiler lines reached against graphs and against minutes, one line per campaign; and the ops whose
    cases first reached the most lines. A curve that has flattened is a campaign running code it has run."""
    with matplotlib.rc_context(RC):
        fig = _figure(8.4, 5.2)
        spec = fig.add_gridspec(2, 2, height_ratios=(1.0, 0.9))
        by_graphs, by_minutes, bottom = fig.add_subplot(spec[0, 0]), fig.add_subplot(spec[0, 1]), fig.add_subplot(spec[1, :])
        for name, trend in trends.items():
            graphs, seconds, lines, shapes = zip(*trend)
            by_graphs.step(graphs, lines, where="post", lw=1.2, label=name)
            by_minutes.step([s / 60.0 for s in seconds], lines, where="post", lw=1.2, label=f"{name}: {shapes[-1]} kernel shapes")
        by_graphs.set_xlabel("graphs")
        by_minutes.set_xlabel("minutes of the campaign")
        by_graphs.set_ylabel("compiler lines reached")
        by_minutes.legend(loc="lower right", fontsize=7)
        ops = sorted(by_op, key=lambda op: -by_op[op])[:top]
        bottom.bar(range(len(ops)), [by_op[op] for op in ops])
        bottom.set_xticks(range(len(ops)), ops, rotation=90, fontsize=7)
        bottom.set_yscale("log")
        bottom.set_ylabel("lines first reached")
        bottom.grid(axis="x", visible=False)
        return to_svg(fig)
