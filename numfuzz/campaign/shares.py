"""`numfuzz fuzz`'s share options split into the generator's settings, the run mix and the campaign's own shares.

The shares and their defaults are one table (`numfuzz.share_table`); the defaults without options are
`GenConfig.default()`, `RunMix.default()` and `CampaignConfig`'s.
"""

from __future__ import annotations

from typing import Any

from numfuzz.program.space import GenConfig
from numfuzz.run_spec import RunMix
from numfuzz.share_table import SHARES


def _of(kind: str, values: dict[str, float]) -> dict[str, float]:
    """The fields of one kind, from `values` (by option parameter)."""
    return {s.field: values[s.parameter] for s in SHARES if s.of == kind}


def split_shares(options: dict[str, Any], cores: int, **gen_settings: Any) -> tuple[GenConfig, RunMix, dict[str, float]]:
    """The generator's settings, the run mix and the campaign's own shares from the parsed options; ValueError for a bad combination."""
    return GenConfig(**_of("gen", options), **gen_settings), RunMix(**_of("mix", options), thread_count=cores), _of("campaign", options)
