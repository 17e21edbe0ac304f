"""`CampaignConfig()` is the campaign `numfuzz fuzz` runs with no options: one set of defaults, from one shares table."""

from __future__ import annotations

import importlib
from dataclasses import fields

import pytest

from numfuzz.campaign.config import CampaignConfig
from numfuzz.share_table import SHARES

# What the command line decides from the machine, or what a user must give
DECIDED_ELSEWHERE = {"targets", "graphs", "seconds", "corpus", "workers", "device", "progress"}


@pytest.fixture
def fuzz_config(cli, monkeypatch):
    """The configuration `numfuzz fuzz` builds from `args`, caught before it runs."""
    caught = []
    module = importlib.import_module("numfuzz.cli.fuzz")  # the package's `fuzz` is the command, not the module
    monkeypatch.setattr(module, "_run", caught.append)

    def build(*args: str) -> CampaignConfig:
        result = cli("fuzz", "--target", "eager", "--graphs", "3", *args)
        assert result.exit_code == 0, result.output
        return caught.pop()

    return build


def test_the_api_and_the_command_line_run_the_same_campaign_by_default(fuzz_config):
    from_cli, from_api = fuzz_config(), CampaignConfig(targets=("eager",), graphs=3)
    for f in fields(CampaignConfig):
        if f.name not in DECIDED_ELSEWHERE:
            assert getattr(from_cli, f.name) == getattr(from_api, f.name), f.name
    assert from_api.gen.scalar_args > 0 and from_api.search > 0 and from_api.mix.dynamic > 0  # the defaults, not the "off" of old


def test_every_share_is_an_option_that_reaches_its_field(fuzz_config):
    for share in SHARES:
        config = fuzz_config(share.flag, "0.5" if share.default != 0.5 else "0.25")
        owner = {"gen": config.gen, "mix": config.mix, "campaign": config}[share.of]
        assert getattr(owner, share.field) == (0.5 if share.default != 0.5 else 0.25), share.flag


def test_the_defaults_of_the_generator_and_the_mix_are_the_tables():
    from numfuzz.program.space import GenConfig
    from numfuzz.run_spec import RunMix

    gen, mix = GenConfig.default(), RunMix.default(2)
    for share in SHARES:
        held = {"gen": (gen, GenConfig()), "mix": (mix, RunMix()), "campaign": (CampaignConfig(targets=("eager",), graphs=1), None)}[share.of]
        assert getattr(held[0], share.field) == share.default, share.field
        if held[1] is not None:  # the generator's own space and the plain mix: its own chances at their defaults, no other
            own = share.field in ("mix_dtypes", "layouts", "zero_dim", "zero_dim_ops", "views")
            assert getattr(held[1], share.field) == (share.default if own else 0.0), share.field
    assert CampaignConfig(targets=("eager",), graphs=1).gen == gen  # and a campaign's, on its defaults
