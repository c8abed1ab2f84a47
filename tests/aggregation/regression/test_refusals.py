"""Every refusal of the models API, each with its status and the parameter at fault: bad questions and options
(400), too few respondents at exactly the early-results rule's edge, data that separate, a fit that does not
converge, collinear covariates and an option nobody chose (409). The same refusals answer the CSV (400 text,
409 page) and the dashboard (the section's notice, with the status)."""

import json

import numpy as np
import pytest
from django.urls import reverse

from ldp.regression import logistic_maximum
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import service as results
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey

MARGIN = 0.3  # a planner margin for which the rule needs few respondents


@pytest.fixture
def survey(owner):
    made = builder.create_survey("refusals", "Refusals", [
        QuestionSpec("Smoked?", "qrr", q="0.5"),
        QuestionSpec("Sex?", "direct", options=["Male", "Female"]),
        QuestionSpec("Sex again?", "direct", options=["M", "F"]),
        QuestionSpec("How often?", "krr", epsilon=1.5, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Hours online?", "onebit", epsilon=1.0, kind="numeric", scale=("0", "10", "1")),
        QuestionSpec("Which?", "multiselect", epsilon=2.0, kind="multi_select", options=["A", "B", "C"]),
        QuestionSpec("Band?", "direct", options=["Young", "Old", "Nobody"]),
        QuestionSpec("Age?", "direct_number", kind="numeric", scale=("18", "90", "1"), options=["18+", "50+"],
                     edges=["18", "50"]),
    ], status=Survey.Status.CLOSED, epsilon_budget=30.0)
    made.researchers.add(owner)
    return made


@pytest.fixture
def ids(survey):
    return {q.order: q.id for q in plan.of(survey)}


def needed(survey):
    """The early-results rule's respondents for question 1 at MARGIN (the survey is closed: fixed-n)."""
    return results.needed(plan.of(survey).questions[0], ResultOptions(margin=MARGIN).resolved(False))


def write(survey, smoked, sex):
    """Responses with the given reports of questions 1 and 2 (3 the same as 2), the others fixed."""
    n = len(smoked)
    current = {q.order: q for q in plan.of(survey)}
    values = {1: smoked, 2: sex, 3: sex, 4: [0] * n, 5: [0] * n, 6: [[0, 0, 0]] * n, 7: [j % 2 for j in range(n)],
              8: [j % 40 for j in range(n)]}
    builder.write_responses(survey, {current[o].id: current[o].mechanism.encode_many(np.asarray(v))
                                     for o, v in values.items()})


def balanced(n):
    """Half the reports 1, within each sex: a fit with a finite maximum."""
    return [(j // 2) % 2 for j in range(n)], [j % 2 for j in range(n)]


def ask(client, survey, query, margin=True):
    url = reverse("aggregation:api-models", args=[survey.slug]) + "?" + query + (f"&margin={MARGIN}" if margin else "")
    response = client.get(url)
    return response.status_code, json.loads(response.content)["error"] if response.status_code >= 400 else None


BAD = [  # (query with {1}.. for the question ids, field at fault)
    ("", "outcome"),
    ("outcome=", "outcome"),
    ("outcome=abc", "outcome"),
    ("outcome=999999", "outcome"),
    ("outcome={2}", "outcome"),  # asked directly: a covariate
    ("outcome={6}", "outcome"),  # a multi-select
    ("outcome={1}&outcome={1}", "outcome"),
    ("outcome={4}", "level"),  # 3 options: which one?
    ("outcome={4}&level=3", "level"),
    ("outcome={5}&level=0", "level"),  # a mean has no options
    ("outcome={1}&covariates=999999", "covariates"),
    ("outcome={1}&covariates={4}", "covariates"),  # randomized
    ("outcome={1}&covariates={1}", "covariates"),
    ("outcome={1}&covariates={2},{2}", "covariates"),
    ("outcome={1}&covariates={2}&reference={2}:2", "reference"),
    ("outcome={1}&covariates={2}&reference={2}", "reference"),
    ("outcome={1}&covariates={8}&reference={8}:0", "reference"),  # a number has no reference
    ("outcome={1}&covariates={2}&reference={7}:0", "reference"),  # not a covariate
    ("outcome={1}&covariates={2}&square={2}", "square"),  # a choice
    ("outcome={1}&covariates={8}&square={2}", "square"),
    ("outcome={1}&se=both", "se"),
    ("outcome={5}&se=opg", "se"),  # linear: HC1
    ("outcome={1}&se=opg&weighted=on", "se"),
    ("outcome={1}&weighted=on", "weighted"),  # no margins
    ("outcome={1}&odds_ratio=1", "odds_ratio"),
    ("outcome={1}&confidence=2", "confidence"),
    ("outcome={1}&interval=wilson", "interval"),  # not a model's parameter
]


@pytest.mark.parametrize(("query", "field"), BAD, ids=[query or "nothing" for query, _ in BAD])
def test_it_refuses_a_bad_request_with_a_400_naming_the_parameter(owner_client, survey, ids, query, field):
    write(survey, *balanced(needed(survey)))
    status, error = ask(owner_client, survey, query.format(*[None, *ids.values()]))
    assert (status, error["code"], error["field"]) == (400, "bad_parameter", field), error


def test_it_fits_at_exactly_the_early_results_threshold(owner_client, survey, ids):
    write(survey, *balanced(needed(survey)))
    status, _ = ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[2]}")
    assert status == 200


def test_it_refuses_a_model_one_respondent_short_of_the_threshold(owner_client, survey, ids):
    count = needed(survey)
    write(survey, *balanced(count - 1))
    status, error = ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[2]}")
    assert (status, error["code"], error["field"]) == (409, "unavailable", "outcome")
    assert error["reason"].startswith(f"Too few respondents for a model: {count - 1} responses answer every "
                                      f"question used, of the {count} needed")


def test_responses_without_every_question_used_do_not_count_toward_the_threshold(owner_client, survey, ids):
    count = needed(survey)
    write(survey, *balanced(count - 1))
    current = {q.order: q for q in plan.of(survey)}
    builder.write_responses(survey, {current[1].id: [1, 0, 1], current[4].id: [0, 0, 0]})  # no sex
    status, error = ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[2]}")
    assert (status, error["field"]) == (409, "outcome")


def test_it_refuses_data_that_separate(owner_client, survey, ids):
    count = max(needed(survey), 40)
    sex = [j % 2 for j in range(count)]
    smoked = [1 if s == 0 else (j // 2) % 2 for j, s in enumerate(sex)]  # every man reports 1: beyond p
    write(survey, smoked, sex)
    status, error = ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[2]}")
    assert (status, error["code"], error["field"]) == (409, "unavailable", "outcome")
    assert error["reason"].startswith("The data separate")


def test_it_refuses_a_fit_that_does_not_converge(owner_client, survey, ids, monkeypatch):
    write(survey, *balanced(max(needed(survey), 40)))
    monkeypatch.setattr(logistic_maximum, "MAX_ITERATIONS", 1)  # Newton's method stopped before it settles
    status, error = ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[2]},{ids[8]}")
    assert (status, error["field"]) == (409, "outcome") and error["reason"].startswith("The fit did not converge")


def test_it_refuses_collinear_covariates(owner_client, survey, ids):
    write(survey, *balanced(max(needed(survey), 40)))
    status, error = ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[2]},{ids[3]}")
    assert (status, error["field"]) == (409, "covariates") and "collinear" in error["reason"]


def test_it_refuses_a_covariate_option_nobody_chose_naming_it(owner_client, survey, ids):
    write(survey, *balanced(max(needed(survey), 40)))
    status, error = ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[7]}")
    assert (status, error["field"]) == (409, "covariates") and "“Nobody” of question 7" in error["reason"]


def test_the_csv_and_the_dashboard_answer_the_same_refusals(owner_client, survey, ids):
    write(survey, *balanced(needed(survey) - 1))
    for query, status in ((f"outcome={ids[2]}", 400), (f"outcome={ids[1]}", 409)):
        csv = owner_client.get(reverse("aggregation:export-model", args=[survey.slug]) + f"?{query}&margin={MARGIN}")
        assert csv.status_code == status
        page = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]) + f"?{query}&margin={MARGIN}")
        assert page.status_code == status and b'<p class="notice" role="alert">No model. Outcome:' in page.content


def test_a_model_short_of_the_threshold_is_fitted_as_a_pilot_figure_on_the_dashboard_and_marked(owner_client, survey,
                                                                                               ids):
    count = needed(survey)
    write(survey, *balanced(count - 1))
    query = f"?outcome={ids[1]}&covariates={ids[2]}&margin={MARGIN}"
    url = reverse("aggregation:dashboard", args=[survey.slug]) + query
    refused = owner_client.get(url)
    assert refused.status_code == 409 and b'<table class="estimates model-table">' not in refused.content
    shown = owner_client.get(url + "&pilot=on").content.decode()
    assert '<table class="estimates model-table">' in shown
    assert ('<p class="notice pilot too-few" role="note"><strong class="pilot-mark">Pilot figures</strong> Too few '
            f"respondents for a model: {count - 1} responses answer every question used, of the {count} needed"
            ) in shown
    assert ask(owner_client, survey, f"outcome={ids[1]}&covariates={ids[2]}&pilot=on")[0] == 400  # the page's only
