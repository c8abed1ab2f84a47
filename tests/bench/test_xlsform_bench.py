"""`python bench/xlsform_bench.py` on tiny forms, on the suite's engine: per size one line with the import's
median wall and CPU seconds, and its scratch database removed."""

import pytest

from tests.bench.engines import bench, scratch_name

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them


@pytest.mark.slow
def test_it_times_the_import_of_each_size_of_form(engine):
    done = bench(engine, "--sizes", "2,5", "--repeat", "1", script="bench/xlsform_bench.py")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert engine.title in lines[1]
    rows = [line.split() for line in lines[2:]]
    assert [row[:2] for row in rows] == [["2", "questions"], ["5", "questions"]], done.stdout
    assert all(float(row[2]) > 0 and float(row[4].strip("()")) >= 0 for row in rows), done.stdout
    assert not engine.exists(engine.configured)
    assert not engine.exists(scratch_name(lines[0]))
