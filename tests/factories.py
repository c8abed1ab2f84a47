"""Helpers shared by test modules (fixtures live in conftest.py)."""

import math
import uuid

from django.contrib.auth import get_user_model

from ldp.planning.rounding import total_loss
from surveys.collection import plan
from surveys.collection.builder import QuestionSpec

PASSWORD = "correct horse battery staple"

# The questions of the cast's "health" survey (tests/conftest.py's `survey`): one per mechanism.
HEALTH_QUESTIONS = [
    QuestionSpec("Cheated?", "qrr", q="0.5"),
    QuestionSpec("Drove drunk?", "bitflip", epsilon=math.log(3)),
    QuestionSpec("Drugs?", "krr", epsilon=1.0, options=["Never", "Sometimes", "Often"]),
    QuestionSpec("Party?", "oue", epsilon=1.0, options=["A", "B", "C", "D"]),
]

# Yes/no bit flips whose configured epsilon has no exact 32-bit channel, so the effective
# epsilon (from the sampler's integers) is slightly smaller: a figure computed from the
# configured epsilon differs from the right one. At 1.00008352337, q = tanh(eps / 2) is
# 9e-12 above 0.46215 and the effective one 4e-10 below it, so even 4 decimals (0.4622 and
# 0.4621) tell them apart; no other question of the fixture shows either.
INEXACT_BITFLIP_EPSILONS = {2: 0.7, 3: 1.3, 4: 1.00008352337}


def make_user(username, **extra):
    return get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)


def valid_payload(survey, key=None, values=None):
    """A well-formed submission for `survey` (values: question order -> report)."""
    reports = {}
    for question in survey.ordered_questions():
        default = [0, 1] + [0] * (question.k() - 2) if question.mechanism_name in ("sue", "oue", "multiselect") else 0
        reports[str(question.pk)] = (values or {}).get(question.order, default)
    return {"version": plan.of(survey).version, "key": str(key or uuid.uuid4()), "reports": reports}


def assert_q_of_the_effective_epsilon(got, mechanism):
    """`got` is the q-RR equivalent of `mechanism`'s effective epsilon, tanh(eps_eff / 2), and
    not that of its configured epsilon. Different float formulas for the same q (tanh, 2p - 1)
    agree to a few ulps; the fixtures' two candidates lie over a thousand times further apart."""
    right = math.tanh(mechanism.effective_epsilon / 2)
    wrong = math.tanh(mechanism.epsilon / 2)
    tolerance = 4 * math.ulp(right)
    assert abs(right - wrong) > 1000 * tolerance, "the configured epsilon must not be exactly representable"
    assert abs(got - right) <= tolerance, (got, right, wrong)


def saved_total(*mechanisms):
    """The questions' total epsilon as the saved survey page shows it (their exact losses added, rounded up
    to 4 decimals): what the page's running total must show too."""
    return str(total_loss(m.sampler() for m in mechanisms).epsilon_up(4))
