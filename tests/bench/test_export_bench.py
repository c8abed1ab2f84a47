"""`python bench/export_bench.py` on tiny sizes, on the suite's engine: it prints each export's time and
peak memory and the ratio, and removes its scratch database (the scratch handling is results_bench's,
tested there)."""

import pytest

from tests.bench.engines import bench, scratch_name

pytestmark = pytest.mark.engine  # runs on the suite's database engine, each of them


@pytest.mark.slow
def test_it_measures_each_export_at_each_size_and_prints_the_ratio(engine):
    done = bench(engine, "--sizes", "20,200", "--formats", "csv,dta,sav", script="bench/export_bench.py")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert engine.title in lines[0]
    for size in ("20", "200"):
        for name in ("csv", "dta", "sav"):
            assert any(line.split()[:2] == [size, name] for line in lines), done.stdout
    for name in ("csv", "dta", "sav"):
        assert f"{engine.title} {name}: peak traced memory" in done.stdout
    assert not engine.exists(engine.configured)
    assert not engine.exists(scratch_name(lines[0]))
