"""Compiler lines and kernel shapes: the campaign's union and trend, the per-case draw, the shape of generated kernels."""

from __future__ import annotations

import json

from numfuzz.address import CaseAddress
from numfuzz.campaign.journal import Journal
from numfuzz.campaign.reach import TREND_POINTS, CompilerReach
from numfuzz.campaign.stats import CampaignStats
from numfuzz.workers.compiler_reach import kernel_shapes


def test_lines_are_unioned_and_credited_to_the_ops_that_first_reached_them():
    reach = CompilerReach()
    assert reach.record({"lines": {"torch/_inductor/a.py": [1, 2, 3]}, "shapes": ["vectorized loops=1"]}, ["exp", "sum"], 1, 5.0) == 4  # 3 lines, 1 shape
    assert reach.record({"lines": {"torch/_inductor/a.py": [2, 3, 4]}, "shapes": []}, ["exp"], 2, 9.0) == 1
    assert reach.record({"lines": {"torch/_inductor/a.py": [4]}, "shapes": ["vectorized loops=1"]}, ["tanh"], 3, 12.0) == 0
    assert reach.line_count == 4 and reach.traced == 3 and reach.by_op == {"exp": 4, "sum": 3}
    assert reach.trend == [(1, 5.0, 3, 1), (2, 9.0, 4, 1)] and reach.rows(10)["graphs_since_new_code"] == 8
    again = CompilerReach.from_json(reach.to_json())
    assert again == reach
    assert reach.record(None, ["exp"], 4, 13.0) == 0 and reach.traced == 3  # an untraced case


def test_the_trend_is_thinned_but_keeps_its_ends():
    reach = CompilerReach()
    for k in range(3 * TREND_POINTS):
        reach.record({"lines": {"f.py": [k]}}, [], k, float(k))
    assert len(reach.trend) <= TREND_POINTS + 1 and reach.trend[0][0] == 0 and reach.trend[-1][0] == 3 * TREND_POINTS - 1


def test_stats_carry_the_reach_through_a_resume_and_into_fuzzer_stats():
    stats = CampaignStats()
    assert "compiler_lines" not in stats.fuzzer_stats({}) and "compiler lines" not in stats.postfix()
    stats.record_reach({"lines": {"torch/_refs/__init__.py": [10, 11]}, "shapes": ["masked loops=2"]}, ["exp"])
    resumed = CampaignStats.from_json(stats.to_json())
    assert resumed.reach.line_count == 2 and "compiler_lines" in resumed.fuzzer_stats({}) and "2 compiler lines" in resumed.postfix()


def test_the_traced_share_is_a_draw_of_the_seed():
    drawn = [CaseAddress(seed).traced(0.25) for seed in range(4000)]
    assert drawn == [CaseAddress(seed, 9, 3).traced(0.25) for seed in range(4000)] and 0.22 < sum(drawn) / len(drawn) < 0.28
    assert not any(CaseAddress(seed).traced(0.0) for seed in range(100)) and all(CaseAddress(seed).traced(1.0) for seed in range(100))


CPP = """
cpp_fused_exp_sum_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
extern "C" void kernel(const float* in_ptr0, float* out_ptr0)
{
    #pragma omp parallel num_threads(2)
    {
        for(int64_t x0=0; x0<16; x0+=8)
        {
            auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + x0, 8);
            tmp_acc0_vec = tmp_acc0_vec + tmp0.exp();
        }
    }
}
''')
cpp_fused_neg_1 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
extern "C" void kernel(const float* in_ptr0, float* out_ptr0)
{
    for(int64_t x0=0; x0<7; x0+=1) { out_ptr0[x0] = -in_ptr0[x0]; }
}
''')
"""


def test_kernel_shapes_name_each_kernels_features():
    assert kernel_shapes(CPP) == ["parallel vectorized reduction loops=1", "loops=1"]


def test_the_journal_writes_the_lines_to_their_own_file_when_they_change_and_a_resume_reads_them(tmp_path):
    identity = {"seed": 1, "shard": "0/1", "targets": ["eager"]}
    journal = Journal.open(tmp_path, identity, ["eager"])
    journal.stats.record_reach({"lines": {"torch/_inductor/a.py": [1, 2]}, "shapes": []}, ["exp"])
    journal.save()
    lines, state = journal.lines_path, journal.path
    assert json.loads(lines.read_text()) == {"torch/_inductor/a.py": [1, 2]} and "lines" not in json.loads(state.read_text())["stats"]["reach"]
    written = lines.stat().st_mtime_ns
    journal.save()  # nothing new: the lines file is left as it is
    assert lines.stat().st_mtime_ns == written
    journal.close()
    data = json.loads(state.read_text())  # a journal from before the file: its lines in the state
    data["stats"]["reach"]["lines"] = {"torch/_refs/b.py": [7]}
    state.write_text(json.dumps(data))
    lines.unlink()
    resumed = Journal.open(tmp_path, identity, ["eager"])
    assert resumed.stats.reach.line_count == 1
    resumed.save()
    resumed.close()
    assert json.loads(lines.read_text()) == {"torch/_refs/b.py": [7]}
    again = Journal.open(tmp_path, identity, ["eager"])
    assert again.stats.reach.lines == {"torch/_refs/b.py": {7}}
    again.close()
