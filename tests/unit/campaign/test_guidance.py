"""Guidance: who joins the pool, how energy moves, that draws are seeded by the case index, and that the pool survives a resume."""

from __future__ import annotations

from numfuzz.address import CaseAddress
from numfuzz.campaign.guidance import DECAY, MAX_ENERGY, NEW_ENERGY, POOL_SIZE, Guide


def _fresh(index: int, seed: int, campaign: int = 3) -> CaseAddress:
    return CaseAddress(seed, index, campaign)


def test_a_traced_case_that_reached_new_code_becomes_a_parent_and_its_children_steer_its_energy():
    guide = Guide(1.0)
    assert guide.draw(_fresh(0, 111)) == _fresh(0, 111)  # no parent yet: a fresh case
    guide.record(111, (), traced=True, new_code=False)
    guide.record(222, (), traced=False, new_code=True)  # untraced: nothing is known of it
    assert not guide.pool
    guide.record(111, (), traced=True, new_code=True)
    child = guide.draw(_fresh(1, 333))
    seed, lineage = child.seed, child.lineage
    assert child.index == 1 and seed == 111 and len(lineage) == 1 and guide.pool[(111, ())].children == 1
    guide.record(seed, lineage, traced=True, new_code=True)
    parent = guide.pool[(111, ())]
    assert parent.energy == min(2 * NEW_ENERGY, MAX_ENERGY) and parent.found == 1 and (111, lineage) in guide.pool
    guide.record(111, lineage[:-1] + (5,), traced=True, new_code=False)
    assert guide.pool[(111, ())].energy == min(2 * NEW_ENERGY, MAX_ENERGY) * DECAY


def test_draws_are_seeded_by_the_index_and_share():
    def guide(share: float) -> Guide:
        g = Guide(share)
        g.record(1, (), True, True)
        g.record(2, (), True, True)
        return g

    a, b = guide(0.5), guide(0.5)
    draws = [a.draw(_fresh(i, 1000 + i, 8)) for i in range(200)]
    assert draws == [b.draw(_fresh(i, 1000 + i, 8)) for i in range(200)]
    children = sum(bool(d.lineage) for d in draws)
    assert 70 < children < 130 and not any(guide(0.0).draw(_fresh(i, i, 8)).lineage for i in range(50))


def test_the_pool_is_bounded_and_survives_json():
    guide = Guide(0.5)
    for seed in range(POOL_SIZE + 10):
        guide.record(seed, (), True, True)
    assert len(guide.pool) == POOL_SIZE
    again = Guide(0.5, Guide.parents_from_json(guide.to_json()))
    assert again.pool == guide.pool
