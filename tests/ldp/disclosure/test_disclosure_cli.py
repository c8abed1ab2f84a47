"""`python -m ldp breach` and `python -m ldp shuffle`: the contract (exact JSON keys, exit status 2 naming the
argument) checked on real processes, the rest in this process (`tests.ldp.cli.test_main.run`)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

import ldp
from ldp.disclosure import breach, epsilon_c
from ldp.disclosure.shuffle import default_delta
from tests.ldp.cli.test_main import ROOT, run

BREACH_KEYS = ["attacker_accuracy", "baseline_accuracy", "odds_bound"]


def process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ldp", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def printed(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


def refused(result: subprocess.CompletedProcess, argument: str) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    named = f"argument {argument}:" in lines[0] or lines[0].endswith(f"required: {argument}")
    assert len(lines) == 1 and named, lines
    assert result.stdout == ""
    return lines[0]


def test_breach_prints_the_three_figures_under_exactly_these_keys():
    found = printed(process("breach", "--mechanism", "krr", "--epsilon", "1", "--k", "3", "--prior", "0.5,0.3,0.2"))
    assert list(found) == BREACH_KEYS
    assert found == breach(ldp.KaryRR(1.0, 3), ["0.5", "0.3", "0.2"]).as_dict()
    assert found["baseline_accuracy"] == 0.5 < found["attacker_accuracy"]


def test_shuffle_prints_epsilon_and_delta_under_exactly_these_keys():
    found = printed(process("shuffle", "--epsilon0", "4", "--n", "100000", "--delta", "1e-6"))
    assert list(found) == ["epsilon", "delta"]
    assert found == {"epsilon": epsilon_c(4.0, 100000, 1e-6), "delta": 1e-6}


@pytest.mark.parametrize("args, argument", [
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--prior", "0.5,0.3,0.3"], "--prior"),
    (["shuffle", "--epsilon0", "1", "--n", "0", "--delta", "1e-6"], "--n"),
], ids=["prior-sum", "shuffle-n"])
def test_bad_arguments_exit_2_naming_the_argument_in_a_process(args, argument):
    refused(process(*args), argument)


@pytest.mark.parametrize("args, mechanism, prior", [
    (["--mechanism", "qrr", "--q", "2/3", "--prior", "0.2,0.8"], ldp.QRandomizedResponse("2/3"), ["0.2", "0.8"]),
    (["--mechanism", "bitflip", "--epsilon", "1.5", "--prior", "0.6,0.4"], ldp.BitFlip(1.5), ["0.6", "0.4"]),
    (["--mechanism", "krr", "--epsilon", "2", "--prior", "0.1,0.2,0.3,0.4"], ldp.KaryRR(2.0, 4),
     ["0.1", "0.2", "0.3", "0.4"]),
    (["--mechanism", "sue", "--epsilon", "2", "--k", "3", "--prior", "0.5,0.25,0.25"], ldp.SymmetricUnary(2.0, 3),
     ["0.5", "0.25", "0.25"]),
    (["--mechanism", "oue", "--epsilon", "1", "--prior", "0.7,0.1,0.1,0.1"], ldp.OptimizedUnary(1.0, 4),
     ["0.7", "0.1", "0.1", "0.1"]),
    (["--mechanism", "multiselect", "--epsilon", "2", "--prior", "0.4,0.1,0.2,0.3"], ldp.MultiSelect(2.0, 2),
     ["0.4", "0.1", "0.2", "0.3"]),
    (["--mechanism", "multiselect", "--epsilon", "2", "--k", "3", "--at-most", "1", "--prior",
      "0.4,0.2,0.3,0,0.1,0,0,0"], ldp.MultiSelect(2.0, 3, at_most=1), ["0.4", "0.2", "0.3", 0, "0.1", 0, 0, 0]),
    (["--mechanism", "onebit", "--epsilon", "1", "--prior", "0.1,0.2,0.3,0.4"], ldp.OneBitMean(1.0, "0", "3", "1"),
     ["0.1", "0.2", "0.3", "0.4"]),
    (["--mechanism", "dlaplace", "--epsilon", "1", "--k", "5", "--prior", "0,0.5,0,0.5,0"],
     ldp.DiscreteLaplace(1.0, "0", "4", "1"), [0, "0.5", 0, "0.5", 0]),
    (["--mechanism", "direct", "--prior", "0.3,0.3,0.4"], ldp.Direct(3), ["0.3", "0.3", "0.4"]),
    (["--mechanism", "direct_number", "--prior", "0.3,0.7"], ldp.DirectNumber("0", "1", "1"), ["0.3", "0.7"]),
], ids=["qrr", "bitflip", "krr", "sue", "oue", "multiselect", "multiselect-at-most", "onebit", "dlaplace", "direct",
        "direct_number"])
def test_the_prior_is_one_share_per_answer_of_each_mechanism(args, mechanism, prior):
    """One per option; per subset in bitmask order for multiselect; per grid value 0..K-1 for numbers. --k is
    read from the prior when not given."""
    result = run("breach", *args)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == breach(mechanism, [Fraction(x) for x in prior]).as_dict()


def test_a_question_sent_as_given_prints_null_odds():
    assert json.loads(run("breach", "--mechanism", "direct", "--prior", "0.3,0.7").stdout) == {
        "attacker_accuracy": 1.0, "baseline_accuracy": 0.7, "odds_bound": None}


def test_shuffle_states_the_default_delta_when_none_is_given():
    """min(1 / n^1.1, 1e-6): at a million reports 1 / n^1.1, below a millionth."""
    found = json.loads(run("shuffle", "--epsilon0", "6", "--n", "1000000").stdout)
    assert found == {"epsilon": epsilon_c(6.0, 10**6, default_delta(10**6)), "delta": default_delta(10**6)}
    assert found["delta"] < 1e-6


@pytest.mark.parametrize("args, argument, words", [
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--k", "4", "--prior", "0.5,0.3,0.2"], "--prior",
     "4 entries"),
    (["breach", "--mechanism", "bitflip", "--epsilon", "1", "--prior", "0.2,0.3,0.5"], "--prior", "2 entries"),
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--prior", "0.5,0.5000001"], "--prior", "sum to 1"),
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--prior=-0.5,1.5"], "--prior", "[0, 1]"),
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--prior", "0.5,half"], "--prior", "numbers"),
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--prior", "nan,0.5"], "--prior", "numbers"),
    (["breach", "--mechanism", "multiselect", "--epsilon", "1", "--prior", "0.5,0.2,0.3"], "--prior", "2^k"),
    (["breach", "--mechanism", "multiselect", "--epsilon", "1", "--k", "2", "--at-most", "1", "--prior",
      "0.4,0.2,0.2,0.2"], "--prior", "at_most"),
    (["breach", "--mechanism", "krr", "--epsilon", "1"], "--prior", "required"),
    (["breach", "--mechanism", "qrr", "--epsilon", "1", "--prior", "0.5,0.5"], "--epsilon", "give --q"),
    (["breach", "--mechanism", "qrr", "--q", "1.5", "--prior", "0.5,0.5"], "--q", "between 0 and 1"),
    (["breach", "--mechanism", "krr", "--prior", "0.5,0.5"], "--epsilon", "required"),
    (["breach", "--mechanism", "krr", "--epsilon", "20", "--prior", "0.5,0.5"], "--epsilon", "10"),
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--k", "65", "--prior", "0.5,0.5"], "--k", "64"),
    (["breach", "--mechanism", "krr", "--epsilon", "1", "--at-most", "1", "--prior", "0.5,0.5"], "--at-most",
     "not used"),
    (["breach", "--mechanism", "onebit", "--q", "0.5", "--prior", "0.5,0.5"], "--q", "not used"),
    (["breach", "--mechanism", "dlaplace", "--epsilon", "1", "--prior", "1"], "--k", "at least 2"),
    (["breach", "--mechanism", "lottery", "--prior", "1"], "--mechanism", "invalid choice"),
    (["shuffle", "--epsilon0", "0", "--n", "10", "--delta", "1e-6"], "--epsilon0", "(0, 100)"),
    (["shuffle", "--epsilon0", "1", "--n", "10", "--delta", "1"], "--delta", "(0, 1)"),
    (["shuffle", "--epsilon0", "1", "--n", "2.5"], "--n", "positive integer"),
    (["shuffle", "--n", "10"], "--epsilon0", "required"),
])
def test_bad_arguments_exit_2_naming_the_argument(args, argument, words):
    assert words in refused(run(*args), argument)


def test_the_commands_in_the_privacy_doc_print_what_it_shows():
    """docs/privacy.md shows each command followed by its output."""
    lines = (ROOT / "docs" / "privacy.md").read_text().splitlines()
    shown = [(line.strip(), lines[i + 1].strip()) for i, line in enumerate(lines)
             if line.strip().startswith("python -m ldp breach") or line.strip().startswith("python -m ldp shuffle")]
    assert len(shown) == 2
    for command, output in shown:
        assert json.loads(run(*command.split()[3:]).stdout) == json.loads(output), command


@pytest.mark.parametrize("mechanism, epsilon, figures", [
    ("krr", 1, "49.8%"), ("krr", 2, "71.1%"), ("sue", 1, "47.2%"), ("sue", 2, "60.1%"), ("oue", 1, "47.0%"),
    ("oue", 2, "58.1%"),
])
def test_the_privacy_docs_table_holds_the_computed_figures(mechanism, epsilon, figures):
    found = breach(ldp.make(mechanism, epsilon=float(epsilon), k=4), ["0.4", "0.3", "0.2", "0.1"]).attacker_accuracy
    assert f"{100 * found:.1f}%" == figures
    section = (ROOT / "docs" / "privacy.md").read_text().split("## What a stolen database reveals")[1]
    row = next(line for line in section.splitlines()
               if line.startswith(f"| {mechanism.upper() if mechanism != 'krr' else 'k-RR'} |"))
    assert figures in row.split("|")[1 + epsilon]
