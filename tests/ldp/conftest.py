import functools

import pytest

import ldp.stats.intervals


@pytest.fixture
def memoized_intervals(monkeypatch):
    """Memoize ldp's own interval functions for the duration of one test.

    The coverage computations call `estimate()` hundreds of thousands of times on a few
    hundred distinct (count, n, level) triples; the Clopper-Pearson bisection costs ~2 ms.
    The wrapped functions are ldp's real (pure) functions, so every estimate still goes
    through the real debias -> interval -> affine map -> clip path; only repeated
    evaluations of the same arguments are served from the cache.
    """
    for name, function in list(ldp.stats.intervals.INTERVALS.items()):
        monkeypatch.setitem(ldp.stats.intervals.INTERVALS, name, functools.lru_cache(maxsize=None)(function))
    return ldp.stats.intervals.INTERVALS
