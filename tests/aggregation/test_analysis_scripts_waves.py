"""analysis.py --waves and analysis.R --waves (each its own implementation), run for real on the app's own
downloads of a series (each wave's reports CSV and codebook in its own folder): their whole waves CSV equals the
app's waves.csv, row for row, with the same confidence and waves compared; numbers to 1e-8 relative. The series:
remembered randomization with a panel answering every wave (fewest changes, the permanent layer's share), a
permanent layer changed in the last wave (unknown), a series randomized afresh (fewest changes without layers) and
one with no shared respondents (independent); each with a yes/no (q-RR), a k-option (k-RR), a multi-select (not
compared) and a k-option asked directly."""

from __future__ import annotations

import csv
import io
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Question, Response
from tests.aggregation.series_support import monthly, store_waves
from tests.conftest import login

RELATIVE = 1e-8
DIRECT = (QuestionSpec("Which region?", "direct", options=["North", "South", "East"]),)
NUMBERS = {"epsilon", "p", "q_other", "all_waves_epsilon", "estimate", "std_error", "ci_low", "ci_high",
           "confidence", "z", "p_value"}


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


def script_waves(client, surveys, here, root: Path, args: list[str]) -> dict[str, list[list[str]]]:
    """analysis.py and analysis.R of the wave `here`, each run with --waves over every wave's folder: their waves
    CSVs."""
    waves = ",".join(folders(client, surveys, root))
    found = {}
    for name, command in (("analysis.py", [sys.executable]), ("analysis.R", [rscript()])):
        script = root / f"{here.slug}-{name}"
        script.write_bytes(download(client, here, name.replace(".", "-").lower()))
        out = root / f"waves-{name}.csv"
        done = subprocess.run([*command, str(script), "--waves", waves, *args, "--csv", str(out)], cwd=root,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        assert "not compared across waves: q3." in done.stdout
        found[name] = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
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

