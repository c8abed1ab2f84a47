"""`python bench/crosstab_bench.py` on tiny sizes, on the suite's engine: per size it prints the dashboard,
each pair's first and later asks, the break-down and a submission's cost, and removes its scratch
database (the scratch handling is results_bench's, tested there)."""

import pytest

from tests.bench.engines import bench, scratch_name

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them


@pytest.mark.slow
def test_it_times_the_dashboard_cross_tabs_and_break_down_at_each_size(engine):
    done = bench(engine, "--sizes", "20,200", "--repeat", "1", "--pairs", "1-2,8-10", "--questions", "12",
                 script="bench/crosstab_bench.py")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert engine.title in lines[0]
    filled = [i for i, line in enumerate(lines) if " responses of 12 questions filled in " in line]
    assert [lines[i].split()[0] for i in filled] == ["20", "200"], done.stdout
    for start in filled:  # each size's block, in this order
        block = [line.split(":")[0].split(" (")[0] for line in lines[start + 1:start + 7]]
        assert block[0].startswith(f"{engine.title}, ") and block[1:] == [
            "dashboard", "cross-tab 1 x 2", "cross-tab 8 x 10", "break-down by 5",
            "a submission in process"], done.stdout
    # 1 x 2, 8 x 10 and 5 by the 11 others, watched afresh at each size
    assert done.stdout.count("with the 13 pairs above watched") == 2, done.stdout
    assert done.stdout.count("answered with the tables") == 2, done.stdout  # 200 responses: within the request
    assert not engine.exists(engine.configured)
    assert not engine.exists(scratch_name(lines[0]))
