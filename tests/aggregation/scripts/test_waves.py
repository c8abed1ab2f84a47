"""analysis.py --waves and analysis.R --waves (each its own implementation), run for real on the app's own
downloads of a series (each wave's reports CSV and codebook in its own folder): their whole waves CSV equals the
app's waves.csv, row for row, with the same confidence and waves compared; numbers to 1e-8 relative. The series:
remembered randomization with a panel answering every wave (fewest changes, the permanent layer's share), a
permanent layer changed in the last wave (unknown), a series randomized afresh (fewest changes without layers) and
one with no shared respondents (independent); each with a yes/no (q-RR), a k-option (k-RR), a multi-select (not
compared) and a k-option asked directly.

Weighted (--weighted, the app's weighted=on): each wave raked to the margins of its own codebook (every wave's
margins differ here), the change of independent waves with the two weighted variances added, that of waves sharing
respondents with the bound (se1 + se2)^2; a wave without margins, or whose responses cannot be raked, stops both
scripts with exit status 2, naming it, as the app refuses (400, 409).
R rakes with survey::rake (to 1e-12 n), the app to 1e-10 of each share: the weights differ by about 1e-10
relative, the weighted figures by less than RELATIVE."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from surveys.aggregation.models import PopulationMargin
from surveys.collection import tallies
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Question, Report, Response
from tests.aggregation.series_support import monthly, store_waves
from tests.aggregation.weighted_series_support import answer_waves, weighted_series
from tests.aggregation.weighting_support import enter
from tests.conftest import login

RELATIVE = 1e-8
DIRECT = (QuestionSpec("Which region?", "direct", options=["North", "South", "East"]),)
NUMBERS = {"epsilon", "p", "q_other", "all_waves_epsilon", "estimate", "std_error", "ci_low", "ci_high",
           "confidence", "z", "p_value", "design_effect", "effective_n"}


def download(client, survey, name: str) -> bytes:
    response = client.get(reverse(f"aggregation:export-{name}", args=[survey.slug]))
    assert response.status_code == 200
    return b"".join(response.streaming_content) if response.streaming else response.content


def folders(client, surveys, root: Path) -> list[str]:
    """Each wave's reports CSV and codebook into its own folder, under the names the dashboard gives them."""
    names = []
    for survey in surveys:
        folder = root / f"wave{survey.wave}"
        folder.mkdir()
        for name, file in (("reports-csv", "reports.csv"), ("codebook", "codebook.json")):
            (folder / f"{survey.slug}-{file}").write_bytes(download(client, survey, name))
        names.append(str(folder))
    return names


def run_scripts(client, surveys, here, root: Path, args: list[str]) -> dict[str, subprocess.CompletedProcess]:
    """analysis.py and analysis.R of the wave `here`, each run with --waves over every wave's folder and --csv
    waves-<script>.csv."""
    waves = ",".join(folders(client, surveys, root))
    done = {}
    for name, command in (("analysis.py", [sys.executable]), ("analysis.R", [rscript()])):
        script = root / f"{here.slug}-{name}"
        script.write_bytes(download(client, here, name.replace(".", "-").lower()))
        out = root / f"waves-{name}.csv"
        done[name] = subprocess.run([*command, str(script), "--waves", waves, *args, "--csv", str(out)], cwd=root,
                                    capture_output=True, text=True, timeout=300, check=False)
    return done


def script_waves(client, surveys, here, root: Path, args: list[str], not_compared: str = "q3"
                 ) -> dict[str, list[list[str]]]:
    """Both scripts' waves CSVs (`run_scripts`), each run having said what it did not compare."""
    found = {}
    for name, done in run_scripts(client, surveys, here, root, args).items():
        assert done.returncode == 0, done.stderr
        assert f"not compared across waves: {not_compared}." in done.stdout
        assert "warning" not in done.stderr  # another wave's codebook is of its own mechanism version
        if "--weighted" in args:  # the same words, and what the weights are
            assert "Weighted: each wave's responses raked to that wave's own population margins" in done.stdout
            assert all(f"wave {wave.wave}: " in done.stdout for wave in surveys)
        found[name] = list(csv.reader(io.StringIO((root / f"waves-{name}.csv").read_text(encoding="utf-8"))))
    return found


def rscript() -> str:
    found = shutil.which("Rscript")
    assert found, "Rscript not found: `make system-deps` installs Debian's r-base-core"
    return found


def download_waves(client, here, query: str) -> list[list[str]]:
    response = client.get(reverse("aggregation:export-waves", args=[here.slug]) + query)
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.content.decode())))


def assert_same_table(found: list[list[str]], expected: list[list[str]], name: str) -> None:
    assert found[0] == expected[0], name
    assert len(found) == len(expected), name
    for got, want in zip(found[1:], expected[1:], strict=True):
        for column, a, b in zip(expected[0], got, want, strict=True):
            if column in NUMBERS and a and b:
                assert math.isclose(float(a), float(b), rel_tol=RELATIVE, abs_tol=1e-14), (name, column, got, want)
            else:
                assert a == b, (name, column, got, want)


@pytest.fixture
def remembered(owner):
    """Three waves remembering randomization, a panel of 150 in each and 40 new respondents per wave; wave 3's
    yes/no remembers another permanent layer (its change from wave 1: unknown)."""
    surveys = monthly(owner, waves=3, extra=DIRECT)
    Question.objects.filter(survey=surveys[2], order=1).update(permanent_q="0.7")
    store_waves(surveys, 150, seed=5, fresh=40)
    return surveys


@pytest.mark.parametrize(("query", "args", "correlations"), [
    ("", [], {"fewest_changes", "unknown"}),
    ("?first=1&second=2&confidence=0.9", ["--change", "1,2", "--confidence", "0.9"], {"fewest_changes"}),
    ("?first=3&second=2", ["--change", "3,2"], {"fewest_changes", "unknown"}),
])
def test_both_scripts_give_waves_csv_of_a_remembered_series(client, owner, remembered, tmp_path, query, args,
                                                                  correlations):
    login(client, owner)
    here = remembered[1]  # the rows name the questions as the wave the script and waves.csv come from asks them
    expected = download_waves(client, here, query)
    assert {row[expected[0].index("correlation")] for row in expected if row[0] == "change"} == correlations
    assert {row[2] for row in expected if row[0] == "change"} == {"q1", "q2", "q4"}  # q4: asked directly
    for name, found in script_waves(client, remembered, here, tmp_path, args).items():
        assert_same_table(found, expected, name)


@pytest.mark.parametrize("shared", [True, False])
def test_both_scripts_give_waves_csv_of_a_series_randomized_afresh(client, owner, tmp_path, shared):
    surveys = monthly(owner, waves=2, remembered=False, extra=DIRECT)
    store_waves(surveys, 120, seed=8, fresh=60)
    if not shared:
        Response.objects.filter(survey__in=surveys).update(earlier_wave=False)
    login(client, owner)
    expected = download_waves(client, surveys[1], "")
    correlations = {row[expected[0].index("correlation")] for row in expected if row[0] == "change"}
    assert correlations == {"fewest_changes" if shared else "independent"}
    assert {row[2] for row in expected if row[0] == "change"} == {"q1", "q2", "q4"}
    for name, found in script_waves(client, surveys, surveys[1], tmp_path, []).items():
        assert_same_table(found, expected, name)



def test_both_scripts_give_waves_csv_with_a_wave_nobody_has_answered_yet(client, owner, tmp_path):
    """A new wave just opened: no reports of any question in it, so no estimate and no change to it."""
    surveys = monthly(owner, waves=3, remembered=False, extra=DIRECT)
    store_waves(surveys[:2], 80, seed=9, fresh=20)
    login(client, owner)
    expected = download_waves(client, surveys[2], "?first=1&second=3")
    wave, responses = expected[0].index("wave"), expected[0].index("responses")
    assert {row[responses] for row in expected if row[0] == "wave" and row[wave] == "3"} == {"0"}
    for name, found in script_waves(client, surveys, surveys[2], tmp_path, ["--change", "1,3"]).items():
        assert_same_table(found, expected, name)


def column(table: list[list[str]], name: str, row: str) -> set[str]:
    return {line[table[0].index(name)] for line in table[1:] if line[0] == row}


def test_both_scripts_give_weighted_waves_csv_of_independent_waves(client, owner, tmp_path):
    surveys = weighted_series(owner)  # each wave its own margins: age band (q2) and region (q3)
    answer_waves(surveys, [160, 120], seed=31)
    login(client, owner)
    expected = download_waves(client, surveys[1], "?weighted=on&first=2&second=1&confidence=0.9")
    assert column(expected, "correlation", "change") == {"independent"}
    assert column(expected, "weighted", "wave") == column(expected, "weighted", "change") == {"true"}
    assert column(expected, "weighted_responses", "wave") == {"160", "120"}
    assert all(float(d) > 1.05 for d in column(expected, "design_effect", "wave"))  # the weights matter
    found = script_waves(client, surveys, surveys[1], tmp_path, ["--weighted", "--change", "2,1", "--confidence",
                                                                 "0.9"], not_compared="q5")
    for name, table in found.items():
        assert_same_table(table, expected, name)


def test_both_scripts_give_weighted_waves_csv_of_a_remembered_series_with_the_bound(client, owner, tmp_path):
    surveys = monthly(owner, waves=2, extra=DIRECT)
    for survey, shares in zip(surveys, ({"North": 0.5, "South": 0.3, "East": 0.2},
                                        {"North": 0.2, "South": 0.3, "East": 0.5}), strict=True):
        enter(survey, 4, shares)  # the region asked directly: each wave's own margin
    store_waves(surveys, 90, seed=5, fresh=30)
    login(client, owner)
    expected = download_waves(client, surveys[1], "?weighted=on")
    assert column(expected, "correlation", "change") == {"unknown"} and column(expected, "shared", "change") == {"90"}
    assert column(download_waves(client, surveys[1], ""), "correlation", "change") == {"fewest_changes"}
    for name, table in script_waves(client, surveys, surveys[1], tmp_path, ["--weighted"]).items():
        assert_same_table(table, expected, name)


def nobody_in_the_oldest_age_band(survey) -> None:
    """A hand edit of the reports, followed by the rebuild the operations guide asks for after one (the responses'
    answers, which weighted figures read, are a copy of the reports)."""
    Report.objects.filter(question__survey=survey, question__order=2, value=2).update(value=1)
    tallies.rebuild(survey)


@pytest.mark.parametrize(("spoil", "wave", "status", "reason"), [
    (lambda surveys: PopulationMargin.objects.filter(question__survey=surveys[0]).delete(), 1, 400,
     "no population margins to weight to"),
    (lambda surveys: nobody_in_the_oldest_age_band(surveys[1]), 2, 409,
     "no respondents in the categories"),
], ids=["no margins", "a category nobody chose"])
def test_both_scripts_refuse_weighted_waves_when_a_wave_cannot_be_weighted(client, owner, tmp_path, spoil, wave,
                                                                          status, reason):
    surveys = weighted_series(owner)
    answer_waves(surveys, [40, 40], seed=33)
    spoil(surveys)
    login(client, owner)
    refused = client.get(reverse("aggregation:api-waves", args=[surveys[1].slug]) + "?weighted=on")
    assert refused.status_code == status and refused.json()["error"]["reason"].startswith(f"Wave {wave}: ")
    assert reason in refused.json()["error"]["reason"]
    for name, done in run_scripts(client, surveys, surveys[1], tmp_path, ["--weighted"]).items():
        assert done.returncode == 2, (name, done.stderr)
        assert f"no weighted figures across waves: Wave {wave} (" in done.stderr, (name, done.stderr)
        assert reason in done.stderr, (name, done.stderr)
        assert not (tmp_path / f"waves-{name}.csv").exists(), name


def test_the_r_scripts_json_reader_reads_every_string_json_dumps_writes(client, owner, tmp_path):
    """analysis.R reads codebooks with a JSON reader of its own; the codebook is json.dumps' ASCII, where a
    character outside the BMP (an emoji in an option's label) is a surrogate pair of \\u escapes."""
    (wave, *_) = monthly(owner, waves=1)
    login(client, owner)
    (tmp_path / "analysis.R").write_bytes(download(client, wave, "analysis-r"))
    texts = ["plain", "Año ¿sí?", "عربي", "👍 fine 😀", "\\u0041 is not A", 'a "quote" / \\ \n\t\r\b\f', "𝔘"]
    (tmp_path / "book.json").write_text(json.dumps({"texts": texts}), encoding="ascii")
    read = ('source("analysis.R"); for (s in read_json("book.json")$texts) '
            'cat(paste(utf8ToInt(s), collapse = " "), "\\n", sep = "")')
    done = subprocess.run([rscript(), "--vanilla", "-e", read], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [" ".join(str(ord(c)) for c in text) for text in texts]
