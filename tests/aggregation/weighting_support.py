"""Surveys with population margins to weight to, shared by the weighted estimates' and cross-tab's tests."""

from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses

N = 500
AGE, REGION = {"18-34": 0.3, "35-54": 0.4, "55+": 0.3}, {"North": 0.45, "South": 0.55}
# The "weights" surveys' first six questions: 1 qrr, 2 direct age band (AGE), 3 direct region (REGION), 4 krr
# (3 options), 5 sue (3: unary), 6 ordinal by oue (every level scored); the modules add their numbers after them.
SIX_QUESTIONS = (
    QuestionSpec("Cheated?", "qrr", q="0.5"),
    QuestionSpec("Age band?", "direct", options=list(AGE)),
    QuestionSpec("Region?", "direct", options=list(REGION)),
    QuestionSpec("How often?", "krr", epsilon=1.5, options=["Never", "Sometimes", "Often"]),
    QuestionSpec("Colour?", "sue", epsilon=1.5, options=["Red", "Green", "Blue"]),
    QuestionSpec("Agree?", "oue", epsilon=1.5, kind="ordinal", options=["No", "Maybe", "Yes"],
                 scores=["-1", "0", "2.5"]),
)


def make_survey(owner):
    """1 qrr, 2 direct age band, 3 direct region, 4 krr (3 options), 5 sue (3: unary), 6 a numeric mean by the
    1-bit mean (not relatable); the sample has too many young people and northerners."""
    made = builder.create_survey("weighted-xtab", "Weighted cross-tab", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Age band?", "direct", options=list(AGE)),
        QuestionSpec("Region?", "direct", options=list(REGION)),
        QuestionSpec("How often?", "krr", epsilon=1.5, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Colour?", "sue", epsilon=1.5, options=["Red", "Green", "Blue"]),
        QuestionSpec("Hours online?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "10", "1")),
    ], status=Survey.Status.OPEN, epsilon_budget=20.0)
    made.researchers.add(owner)
    return made


def make_ages_survey(owner, slug):
    """1 direct age band (AGE's options), 2 a direct number (age in years, 18..99) with three bins."""
    made = builder.create_survey(slug, "Ages", [
        QuestionSpec("Age band?", "direct", options=list(AGE)),
        QuestionSpec("Age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 64", "65 to 99"], edges=["18", "35", "65"]),
    ], status=Survey.Status.OPEN, epsilon_budget=20.0)
    made.researchers.add(owner)
    return made


def answer(survey):
    """N responses from arrays; {question order: the reports written, response i's at i}."""
    found = add_responses(survey, N, seed=21, truth={2: [0.5, 0.3, 0.2], 3: [0.7, 0.3]})
    return {q.order: values for q, values in found.items()}


def enter(survey, order, shares, source="Census 2021"):
    question = survey.questions.get(order=order)
    found = PopulationMargin.objects.create(question=question, source=source)
    for option, share in zip(question.ordered_options(), shares.values(), strict=True):
        MarginShare.objects.create(margin=found, option=option, share=share)


def ids(survey):
    return {q.order: q.pk for q in survey.ordered_questions()}
