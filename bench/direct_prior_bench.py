"""Benchmark: the statement's breach with the direct answers as prior (surveys.aggregation.privacy.direct_prior) at 10^5
and 10^6 responses.

    python bench/direct_prior_bench.py                         # 10^5 and 10^6 responses, SQLite
    DATABASE_URL=postgres://... python bench/direct_prior_bench.py --sizes 1000000

The survey of bench/uniqueness_bench.py (one randomized question, an age in years 18..99, sex, region of 10: 1,640
combinations of direct answers), filled the same way on a scratch database (removed afterwards); per size, the time
of the one grouped read (`direct_prior.counted`) and of the whole figure (`direct_prior.computed`: the read, the fit of
every combination's prior, the exact sums).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from uniqueness_bench import filled  # noqa: E402

from surveys.aggregation.privacy import direct_prior  # noqa: E402
from surveys.collection import plan  # noqa: E402


def main() -> None:
    for survey, size in filled("100000,1000000"):
        current = plan.of(survey)
        questions = [q for q in current if direct_prior.covered(q)]
        start = time.perf_counter()
        counted = direct_prior.counted(survey, current.direct, questions)
        read = time.perf_counter() - start
        start = time.perf_counter()
        found = direct_prior.computed(survey, current)
        whole = time.perf_counter() - start
        assert found is not None and counted is not None
        rows = sum(len(values) for cells in counted.values() for values in cells.values())
        figure = next(iter(found.breaches.values()))
        print(f"{connection.vendor} n={size:,}: the grouped read {read:.2f} s ({rows:,} rows), "
              f"direct_prior.computed {whole:.2f} s; {found.combinations:,} combinations, accuracy "
              f"{100 * figure.attacker:.1f}% (without the report {100 * figure.baseline:.1f}%)", flush=True)


if __name__ == "__main__":
    main()
