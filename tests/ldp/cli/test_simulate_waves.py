"""`python -m ldp simulate --waves W [--memoize ...]`: the command line contract of survey waves."""

from __future__ import annotations

import pytest

import ldp
from ldp.mechanisms.remembered import Remembered
from tests.ldp.cli.test_main import records, run

WAVE_KEYS = {"estimate", "std_error", "ci_low", "ci_high", "n"}


def test_it_prints_every_wave_and_the_difference_per_repetition():
    found = records(run("simulate", "--mechanism", "qrr", "--q", "0.5", "--waves", "3", "--memoize",
                        "--permanent-q", "0.8", "--truth", "0.3|0.35|0.4", "--n", "500", "--reps", "2",
                        "--seed", "7"))
    assert len(found) == 2
    for record in found:
        assert set(record) == {"waves", "difference", "epsilon"}
        assert [set(wave) for wave in record["waves"]] == [WAVE_KEYS] * 3
        assert all(wave["n"] == 500 and len(wave["estimate"]) == 1 for wave in record["waves"])
        assert set(record["difference"]) == WAVE_KEYS - {"n"}
        change = record["difference"]
        assert change["estimate"][0] == pytest.approx(record["waves"][2]["estimate"][0]
                                                      - record["waves"][0]["estimate"][0])
        assert change["ci_low"][0] < change["estimate"][0] < change["ci_high"][0]
    remembered = Remembered(ldp.QRandomizedResponse("0.8"), ldp.QRandomizedResponse("0.5"))
    assert found[0]["epsilon"] == {"wave": remembered.wave_epsilon, "all_waves_unchanged": remembered.all_waves_epsilon}
    assert found[0] != found[1]


def test_the_same_seed_gives_the_same_output():
    args = ("simulate", "--mechanism", "krr", "--k", "3", "--epsilon", "1", "--waves", "2", "--memoize",
            "--permanent-epsilon", "3", "--truth", "0.2,0.3,0.5|0.5,0.2,0.3", "--n", "300", "--seed", "1")
    first, second = records(run(*args)), records(run(*args))
    assert first == second and len(first[0]["waves"][0]["estimate"]) == 3


def test_waves_without_memory_are_randomized_afresh_and_cost_each_wave():
    found = records(run("simulate", "--mechanism", "bitflip", "--epsilon", "1", "--waves", "2", "--truth",
                        "0.3|0.3", "--n", "400", "--seed", "2"))
    assert found[0]["epsilon"]["all_waves_unchanged"] == pytest.approx(2 * ldp.BitFlip(1.0).effective_epsilon)


@pytest.mark.parametrize("args, message", [
    (["--mechanism", "qrr", "--q", "0.5", "--truth", "0.3", "--memoize", "--permanent-q", "0.8"],
     "--memoize: needs --waves"),
    (["--mechanism", "qrr", "--q", "0.5", "--truth", "0.3|0.4", "--waves", "2", "--permanent-q", "0.8"],
     "--permanent-q: only with --memoize"),
    (["--mechanism", "qrr", "--q", "0.5", "--truth", "0.3|0.4", "--waves", "2", "--memoize"],
     "give one of --permanent-q"),
    (["--mechanism", "bitflip", "--epsilon", "1", "--truth", "0.3|0.4", "--waves", "2", "--memoize",
      "--permanent-q", "0.8"], "takes --permanent-epsilon"),
    (["--mechanism", "qrr", "--q", "0.5", "--truth", "0.3|0.4", "--waves", "2", "--memoize",
      "--permanent-epsilon", "2"], "takes --permanent-q"),
    (["--mechanism", "qrr", "--q", "0.5", "--truth", "0.3|0.4|0.5", "--waves", "2"], "give 2 truths"),
    (["--mechanism", "krr", "--k", "3", "--epsilon", "1", "--truth", "0.2,0.3,0.5|0.5,0.5", "--waves", "2"],
     "give 3 fractions"),
    (["--mechanism", "multiselect", "--k", "3", "--epsilon", "1", "--truth", "0.2,0.3,0.5|0.2,0.3,0.5",
      "--waves", "2"], "--waves: for questions with one answer"),
    (["--mechanism", "krr", "--k", "3", "--epsilon", "1", "--truth", "0.2,0.3,0.5|0.2,0.3,0.5", "--waves", "2",
      "--memoize", "--permanent-epsilon", "50"], "--memoize: epsilon must lie in"),
    (["--mechanism", "qrr", "--q", "0.5", "--truth", "0.3|0.4", "--waves", "0"], "--waves: must be a positive"),
])
def test_it_refuses_bad_wave_arguments_with_status_2(args, message):
    result = run("simulate", "--n", "100", *args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""
