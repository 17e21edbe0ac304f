"""A case's address: every stream a case draws from derives from it, each apart from the others."""

from __future__ import annotations

import pytest

import numfuzz.address as address
from numfuzz.address import GRAPH_DRAWS, CaseAddress, GraphStreams


def test_every_salt_names_one_stream():
    salts = {name: value for name, value in vars(address).items() if name.isupper() and isinstance(value, int) and name != "COMPILE_BLOCK"}
    assert len(set(salts.values())) == len(salts), salts  # two draws under one salt would draw alike


def test_each_graph_draw_has_its_own_stream_and_a_typo_is_refused():
    streams = CaseAddress(5).graph_streams()
    firsts = {name: streams(name).random() for name in GRAPH_DRAWS}
    assert len(set(firsts.values())) == len(GRAPH_DRAWS)
    assert streams("ops") is streams("ops")  # one stream per draw, drawn on
    assert CaseAddress(5).graph_streams()("ops").random() == firsts["ops"]  # and the same for the same seed
    with pytest.raises(KeyError, match="GRAPH_DRAWS"):
        streams("op")


def test_a_single_stream_serves_every_draw():
    import random

    one = random.Random(0)
    streams = GraphStreams(single=one)
    assert all(streams(name) is one for name in GRAPH_DRAWS)
    with pytest.raises(ValueError):
        GraphStreams(1, single=one)


def test_a_stored_case_is_addressed_by_its_own_seed_a_child_by_its_last_mutation():
    root = CaseAddress.recorded({"seed": "12"}, "abc")
    child = CaseAddress.recorded({"seed": 12, "lineage": {"seeds": [7, 9], "mutations": ["swap", "grow"]}}, "abc")
    assert root == CaseAddress(12) and child == CaseAddress(12, lineage=(7, 9))
    assert child.seed_of(address.SEARCH) != root.seed_of(address.SEARCH)  # a guided child searches apart from its root
    by_content = CaseAddress.recorded({}, "abc")
    assert by_content == CaseAddress.of_content("abc") != CaseAddress.recorded({}, "abd")


def test_a_stored_cases_content_is_read_only_when_it_has_no_seed_of_its_own():
    asked = []

    def content() -> str:
        asked.append(True)
        return "abc"

    assert CaseAddress.recorded({"seed": 12}, content) == CaseAddress(12) and not asked  # a campaign's case: its hash is never taken
    assert CaseAddress.recorded({}, content) == CaseAddress.of_content("abc") and asked
