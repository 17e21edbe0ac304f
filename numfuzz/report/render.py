"""The page: ReportData through a Jinja2 template into one self-contained HTML file.

Figures go in as data: URIs, so the page opens offline and the SVGs' ids never collide.
"""

from __future__ import annotations

import base64
import math

import jinja2

from numfuzz.judge.verdicts import Verdict
from numfuzz.report.data import ReportData

TEMPLATE = "report.html.j2"


def svg_data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def number(value: object, digits: int = 3) -> str:
    """Numbers as the CLI's tables write them: a few significant digits, inf spelled out."""
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.{digits}g}"
    return str(value)


def duration(seconds: float) -> str:
    seconds = float(seconds)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("numfuzz.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a misspelt field fails the tests, not silently the page
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(data_uri=svg_data_uri, number=number, duration=duration)
    return env


def render(data: ReportData) -> str:
    seen = {v for c in data.campaigns for counts in c.verdicts.values() for v, n in counts.items() if n}
    order = [v.value for v in Verdict] + ["error"]  # the CLI's column order; unknown names go last
    verdicts = [v for v in order if v in seen] + sorted(seen - set(order))
    return environment().get_template(TEMPLATE).render(report=data, verdict_columns=verdicts)
