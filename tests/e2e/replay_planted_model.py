"""The false-failure rate of tests/e2e/test_weighted_model_through_the_page.py, offline: its seeded sample is fixed,
so only the browsers' randomization varies from run to run; this replays it (ldp's sampler) many times and applies
the test's checks to ldp's own estimates, raking and fits, as the app computes them. Not a test (no browser):

    python -m tests.e2e.replay_planted_model [REPLAYS [SEED [N]]]

prints the sample, the share of replays in which each check failed, and how often two covariate columns swapped
(the bug the model's checks are for) would be caught."""

import os
import sys

import django
import numpy as np

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
django.setup()

from ldp import BitFlip  # noqa: E402
from ldp.regression import logistic  # noqa: E402
from ldp.weighting.estimates import weighted_fractions  # noqa: E402
from ldp.weighting.raking import coded_margin, rake  # noqa: E402
from surveys.aggregation.weighting import weights as weighting  # noqa: E402
from tests.e2e import test_weighted_model_through_the_page as planted  # noqa: E402


def covers(found, j: int, value: float) -> bool:
    return bool(found.ci_low[j] <= value <= found.ci_high[j])


def replay(replays: int, seed: int, n: int) -> None:
    sample = planted.respondents(n, seed)
    truth, betas, confidence = planted.population_share(), list(planted.PLANTED.values()), planted.CONFIDENCE
    mechanism = BitFlip(planted.QUESTIONS[0].epsilon or 0.0)
    p, q = mechanism.p, mechanism.q_other
    design = rake([coded_margin("band", sample["band"], dict(zip("abc", planted.POPULATION_BANDS, strict=True))),
                   coded_margin("sex", sample["female"], {"m": 1 - planted.POPULATION_FEMALE,
                                                          "f": planted.POPULATION_FEMALE})], cap=weighting.CAP)
    x = np.column_stack([np.ones(n), sample["female"], sample["age"]])
    print(f"population {truth:.4f}; sample's true answers {sample['yes'].mean():.4f}, weighted "
          f"{np.average(sample['yes'], weights=design.weights):.4f}; design effect {design.design_effect:.3f}")
    rng = np.random.default_rng(12345)
    failed = dict.fromkeys(("weighted estimate", "unweighted misses", "weighted model", "model", "any", "swap caught"),
                           0)
    for _ in range(replays):
        y = mechanism.randomize(sample["yes"], rng).astype(int)
        checks = {
            "weighted estimate": not covers(weighted_fractions(mechanism, y, design, confidence), 1, truth),
            "unweighted misses": covers(mechanism.estimate(np.bincount(y, minlength=2), n, confidence=confidence,
                                                           interval="wilson"), 1, truth),
            "weighted model": not all(covers(logistic.fit(y, x, p, q, design=design, confidence=confidence), j, b)
                                      for j, b in enumerate(betas)),
            "model": not all(covers(logistic.fit(y, x, p, q, confidence=confidence), j, b)
                             for j, b in enumerate(betas)),
        }
        swapped = logistic.fit(y, x[:, [0, 2, 1]], p, q, design=design, confidence=confidence)
        checks["swap caught"] = not all(covers(swapped, j, b) for j, b in enumerate(betas))
        checks["any"] = any(checks[name] for name in ("weighted estimate", "unweighted misses", "weighted model",
                                                      "model"))
        for name, failing in checks.items():
            failed[name] += failing
    print({name: count / replays for name, count in failed.items()})


if __name__ == "__main__":
    given = [int(a) for a in sys.argv[1:]]
    replay(*given, *[1000, planted.SEED, planted.N][len(given):])
