"""Reading torch's op database into entries (what `scripts/op_db_snapshot` runs): public calls, lambdas written out,
random ops refused, integer forms read beside float ones. Needs expecttest, which torch's test helpers import."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def op_db() -> dict:
    pytest.importorskip("expecttest", reason="torch.testing._internal imports expecttest")
    from torch.testing._internal.common_methods_invocations import op_db

    return {o.name + (f".{o.variant_test_name}" if o.variant_test_name else ""): o for o in op_db}


def _read(op_db: dict, name: str) -> dict:
    from numfuzz.program.op_db.reading import read_op_db

    (entry,) = read_op_db([op_db[name]], "torch")
    return entry


def test_a_public_function_is_called_by_its_name_with_forms_of_each_dtype(op_db):
    entry = _read(op_db, "sinc")
    assert entry["call"] == "torch.sinc" and not entry["refused"] and entry["grad"]
    calls = {f["call"] for f in entry["forms"]}
    assert calls == {"torch.sinc({0})"} and {"fp32", "i64", "bool"} <= {f["args"][0]["dtype"] for f in entry["forms"]}
    assert all(f["meta"] for f in entry["forms"])  # sinc's meta function takes any size


def test_a_lambda_that_reorders_its_arguments_is_written_as_the_call_it_makes(op_db):
    entry = _read(op_db, "nn.functional.embedding")
    assert not entry["refused"]
    form = entry["forms"][0]
    assert form["call"].startswith("torch.nn.functional.embedding({1}, {0}")
    assert form["args"][1]["kind"] == "index" and form["args"][1]["range"][0] >= 0  # positions within the weight's rows


def test_a_random_op_is_refused_as_random(op_db):
    assert _read(op_db, "nn.functional.dropout")["refused"].startswith("random")
    assert _read(op_db, "bernoulli")["refused"].startswith("random")


def test_a_complex_result_is_refused_with_its_dtype(op_db):
    entry = _read(op_db, "fft.fft")
    assert entry["refused"] and "complex" in entry["refused"]
