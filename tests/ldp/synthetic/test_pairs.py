"""Every pair's table of codes counted in few passes (`ldp.synthetic.pairs`): the same tables as a pass per pair,
over the responses answering both, per weighting cell too."""

import numpy as np
import pytest

from ldp.synthetic import pairs
from ldp.synthetic.pairs import pair_tables

SIZES = [2, 2, 4, 16, 32, 3, 8, 2, 30, 6, 64, 5]


def one_pass_per_pair(codes, i, j, keep=None):
    both = (codes[i] >= 0) & (codes[j] >= 0) & (True if keep is None else keep)
    return np.bincount(codes[i][both] * SIZES[j] + codes[j][both], minlength=SIZES[i] * SIZES[j]).reshape(
        SIZES[i], SIZES[j])


@pytest.fixture
def codes():
    rng = np.random.default_rng(2)
    return [np.where(rng.random(3000) < 0.1, -1, rng.integers(0, s, 3000)) for s in SIZES]


@pytest.mark.parametrize("bins", [16, 1 << 10, pairs.BINS])  # every variable alone, a few together, the default
def test_each_pair_is_counted_over_the_responses_answering_both(codes, bins, monkeypatch):
    monkeypatch.setattr(pairs, "BINS", bins)
    found = pair_tables(codes, SIZES)
    assert sorted(found) == [(i, j) for i in range(len(SIZES)) for j in range(i + 1, len(SIZES))]
    for (i, j), table in found.items():
        assert (table == one_pass_per_pair(codes, i, j)).all(), (i, j)


def test_with_cells_each_cell_has_its_own_table_and_a_response_without_one_none(codes):
    cells = np.where(np.arange(3000) % 11 == 0, -1, np.arange(3000) % 4)
    found = pair_tables(codes, SIZES, cells, 4)
    for (i, j), table in found.items():
        assert table.shape == (4, SIZES[i], SIZES[j])
        for cell in range(4):
            assert (table[cell] == one_pass_per_pair(codes, i, j, cells == cell)).all(), (i, j, cell)
