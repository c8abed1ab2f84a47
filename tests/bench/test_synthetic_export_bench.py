"""`python bench/synthetic_export_bench.py` on a tiny survey, on the suite's engine: it fills a scratch database,
times synthetic.csv through the background preparation and each of its steps, and removes the scratch database."""

import pytest

from tests.bench.engines import bench, scratch_name

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them


def test_it_times_synthetic_csv_through_the_background_preparation(engine):
    done = bench(engine, "--n", "400", "--questions", "10", script="bench/synthetic_export_bench.py")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "10 questions, 400 responses filled in " + lines[1].split(" in ")[1], done.stdout
    assert lines[2].startswith(f"{engine.title} synthetic.csv through the background preparation: "), done.stdout
    assert lines[2].endswith(" 400 rows") and "; goal: 60 s)" in lines[2], done.stdout
    assert lines[3].startswith("steps alone: read the reports ") and "(cpu " in lines[3], done.stdout
    assert lines[4].startswith("quality: largest difference "), done.stdout
    assert not engine.exists(engine.configured)
    assert not engine.exists(scratch_name(lines[0]))


def test_with_margins_it_times_the_weighted_rows(engine):
    done = bench(engine, "--n", "400", "--questions", "10", "--margins", script="bench/synthetic_export_bench.py")
    assert done.returncode == 0, done.stderr  # it fails when the rows come out unweighted
    lines = done.stdout.splitlines()
    assert lines[2] == "weighted: population margins of questions 6", done.stdout
    assert lines[3].startswith(f"{engine.title} synthetic.csv through the background preparation: "), done.stdout
    assert not engine.exists(scratch_name(lines[0]))
