"""A survey made for models, answered from a planted logistic model, and the arrays it was written from (so a
test can fit ldp directly on the same data the app reads from the database).

Questions: 1 qrr (q = 0.5) "Smoked?", 2 direct age band (3 options), 3 direct sex (2), 4 direct number age
18..90, 5 krr (eps 1.5, 3 options), 6 a 1-bit mean 0..10, 7 oue (eps 1.5, 3 options), 8 a multi-select; with
`extra=[MOOD]`, 9 a discrete Laplace mean -5..5 (its grid index about 11 + 2 [female] - 0.06 (age - 50)). The
true answer of 1 follows logit P = -1 + 0.8 [35-54] + 1.2 [55+] - 0.5 [female] + 0.01 (age - 50)."""

from __future__ import annotations

import numpy as np

from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey

QUESTIONS = [
    QuestionSpec("Smoked?", "qrr", q="0.5"),
    QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
    QuestionSpec("Sex?", "direct", options=["Male", "Female"]),
    QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "90", "1"),
                 options=["18 to 34", "35 to 90"], edges=["18", "35"]),
    QuestionSpec("How often?", "krr", epsilon=1.5, options=["Never", "Sometimes", "Often"]),
    QuestionSpec("Hours online?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "10", "1")),
    QuestionSpec("Colour?", "oue", epsilon=1.5, options=["Red", "Green", "Blue"]),
    QuestionSpec("Which?", "multiselect", epsilon=2.0, kind="multi_select", options=["A", "B", "C"]),
]
MOOD = QuestionSpec("Change in mood?", "dlaplace", epsilon=2.0, kind="numeric", scale=("-5", "5", "0.5"))


def make_survey(owner, slug: str = "models", status: str = Survey.Status.CLOSED, extra=()) -> Survey:
    survey = builder.create_survey(slug, "Models", [*QUESTIONS, *extra], status=status, epsilon_budget=30.0)
    survey.researchers.add(owner)
    return survey


def answer(survey: Survey, n: int, seed: int = 5) -> dict[int, np.ndarray]:
    """Write n responses; returns {order: reports as sent} (the multi-select's rows of bits)."""
    rng = np.random.default_rng(seed)
    current = plan.of(survey)
    q = {question.order: question for question in current}
    age = rng.integers(18, 91, size=n)
    band = np.digitize(age, [35, 55])
    female = (rng.random(n) < 0.5).astype(np.int64)
    eta = -1.0 + np.array([0.0, 0.8, 1.2])[band] - 0.5 * female + 0.01 * (age - 50)
    smoked = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(np.int64)
    often = np.where(rng.random(n) < 1 / (1 + np.exp(-(eta + 0.5))), 2, rng.integers(0, 2, size=n))
    hours = np.clip(np.round(3 + 2 * female + 0.05 * (age - 50) + rng.normal(0, 1.5, size=n)), 0, 10).astype(int)
    truths = {1: smoked, 2: band, 3: female, 4: age - 18, 5: often, 6: hours, 7: rng.integers(0, 3, size=n),
              8: (rng.random((n, 3)) < 0.4).astype(np.uint8)}
    if 9 in q:  # MOOD's grid index (drawn only then: a survey without it gets the reports it always got)
        mood = np.round(11 + 2 * female - 0.06 * (age - 50) + rng.normal(0, 3, size=n))
        truths[9] = np.clip(mood, 0, 20).astype(np.int64)
    reports = {order: q[order].mechanism.randomize(values, rng) for order, values in truths.items()}
    builder.write_responses(survey, {q[order].id: q[order].mechanism.encode_many(values)
                                     for order, values in reports.items()})
    return reports
