"""`python bench/model_service_bench.py` on tiny sizes, on the suite's engine: per size it prints the model's
time unweighted and weighted with its stages and the rows' groups, the ratios between the sizes, and removes
its scratch database (the scratch handling is results_bench's, tested there). 1,000 responses is about the
fewest whose 10 covariate terms do not separate."""

import pytest

from tests.bench.engines import bench, scratch_name

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them


@pytest.mark.slow
def test_it_times_the_model_unweighted_and_weighted_at_each_size(engine):
    done = bench(engine, "--sizes", "1000,2000", "--repeat", "1", script="bench/model_service_bench.py")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert engine.title in lines[0]
    rows = [line.split() for line in lines if line.split()[:1] in (["1,000"], ["2,000"])]
    assert [row[:3] for row in rows] == [["1,000", "unweighted", "10"], ["1,000", "weighted", "10"],
                                         ["2,000", "unweighted", "10"], ["2,000", "weighted", "10"]], done.stdout
    for row in rows:  # groups, then the service's wall and CPU seconds and the read, rake and fit stages: numbers
        assert 0 < int(row[3].replace(",", "")) <= int(row[0].replace(",", "")), row
        assert all(float(value) >= 0 for value in row[4:9]), row
    assert f"{engine.title} unweighted ratio 2,000 / 1,000 responses" in done.stdout
    assert f"{engine.title} weighted ratio 2,000 / 1,000 responses" in done.stdout
    assert not engine.exists(engine.configured)
    assert not engine.exists(scratch_name(lines[0]))
