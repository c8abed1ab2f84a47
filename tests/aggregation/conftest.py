import pytest

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses
from tests.factories import INEXACT_BITFLIP_EPSILONS


@pytest.fixture(params=[0, 1, 200], ids=["no-responses", "one-response", "many-responses"])
def sized_survey(request, survey):
    """The shared survey with 0, 1 or many randomized responses."""
    if request.param:
        add_responses(survey, request.param, seed=request.param)
    return survey


# Texts that a label or a script literal could get wrong: quotes, a backslash, R and Python
# syntax, non-ASCII characters (one outside the BMP), and a question longer than any label.
TRICKY_TEXT = 'Did you "ever" cheat \\ lie?\n"); stop("injected"); (" — ça, 😀'
LONG_TEXT = "How often, in the twelve months before this survey, did you take something that was not yours? " * 3


@pytest.fixture
def every_kind_survey(db, owner):
    """An open survey ("kinds") with every mechanism and a direct question: 1 qrr (q = 0.3), 2 bitflip
    at an epsilon with no exact channel (1.00008352337), 3 krr (eps 1.3, 3 options), 4 sue (eps 0.7,
    3 options), 5 oue (eps 1.3, 4 options), 6 direct (3 options); question texts and options with
    quotes, backslashes, code, non-ASCII and more characters than Stata's and SPSS's labels hold."""
    survey = builder.create_survey("kinds", "Kinds «all» \"of\" them", [
        QuestionSpec(TRICKY_TEXT, "qrr", q="0.3"),
        QuestionSpec("Drove drunk?", "bitflip", epsilon=INEXACT_BITFLIP_EPSILONS[4]),
        QuestionSpec(LONG_TEXT, "krr", epsilon=1.3, options=["Never", "Sometimes", "Often " + "x" * 150]),
        QuestionSpec("Colour?", "sue", epsilon=0.7, options=["Rouge ‘vif’", 'Green "2"', "Blue\\Navy"]),
        QuestionSpec("Party?", "oue", epsilon=1.3, options=["A", "B", "C", "D"]),
        QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
    ], status=Survey.Status.OPEN, epsilon_budget=10.0)
    survey.researchers.add(owner)
    return survey


@pytest.fixture
def all_kinds_survey(db, owner):
    """An open survey ("all") with every mechanism and every question kind: 1 qrr, 2 bitflip, 3 krr, 4 sue,
    5 oue, 6 direct (as in every_kind_survey), 7 multi-select (at most 2), 8 numeric mean by the 1-bit mean
    (0..100 by 1), 9 numeric mean by discrete Laplace (-5..5 by 0.5), 10 numeric histogram (krr over 3 bins),
    11 ordinal by krr with an unscored "Prefer not to say", 12 ordinal by sue with every level scored, 13 ordinal
    by oue with an unscored level."""
    survey = builder.create_survey("all", "All «kinds»", [
        QuestionSpec(TRICKY_TEXT, "qrr", q="0.3"),
        QuestionSpec("Drove drunk?", "bitflip", epsilon=INEXACT_BITFLIP_EPSILONS[4]),
        QuestionSpec("How often?", "krr", epsilon=1.3, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Colour?", "sue", epsilon=0.7, options=["Rouge ‘vif’", 'Green "2"', "Blue\\Navy"]),
        QuestionSpec("Party?", "oue", epsilon=1.3, options=["A", "B", "C", "D"]),
        QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
        QuestionSpec("Which have you used this month?", "multiselect", epsilon=2.0, kind="multi_select",
                     options=["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"], at_most=2),
        QuestionSpec("Hours online per week?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "100", "1")),
        QuestionSpec('Change in "mood"?', "dlaplace", epsilon=2.0, kind="numeric", scale=("-5", "5", "0.5")),
        QuestionSpec("Your age?", "krr", epsilon=1.0, kind="numeric", scale=("0", "120", "1"),
                     options=["0 to 17", "18 to 64", "65 to 120"], edges=["0", "18", "65"]),
        QuestionSpec("How often do you gamble?", "krr", epsilon=1.0, kind="ordinal",
                     options=["Never", "Rarely", "Often", "Prefer not to say"], scores=["1", "2", "3", None]),
        QuestionSpec("Agree?", "sue", epsilon=1.5, kind="ordinal",
                     options=["Disagree", "Neutral", "Agree"], scores=["-1", "0", "2.5"]),
        QuestionSpec("Trust?", "oue", epsilon=1.5, kind="ordinal",
                     options=["None", "Some", "Full", "Prefer not to say"], scores=["0", "5", "10", None]),
    ], status=Survey.Status.OPEN, epsilon_budget=40.0)
    survey.researchers.add(owner)
    return survey


@pytest.fixture
def two_questions(db, owner):
    """An open survey ("few"): 1 k-RR (eps 2, 3 options), 2 direct (3 options); the k-RR question needs more
    respondents than the direct one for any margin (tests of the rule for too few respondents)."""
    survey = builder.create_survey("few", "Few", [
        QuestionSpec("Colour?", "krr", epsilon=2.0, options=["Red", "Green", "Blue"]),
        QuestionSpec("Age band?", "direct", options=["18-34", "35-54", "55+"]),
    ], status=Survey.Status.OPEN, epsilon_budget=3.0)
    survey.researchers.add(owner)
    return survey


@pytest.fixture
def answered_kinds(client, owner, kinds_survey):
    """The kinds survey with 250 seeded responses, its owner signed in (the synthetic data's tests)."""
    from tests.aggregation.exports.test_reports import TRUTH

    builder.simulate_responses(kinds_survey, 250, TRUTH, seed=8)
    client.force_login(owner)
    return kinds_survey
