"""Models (surveys.aggregation.regression.fitting) through the models API, against ldp fitted directly on the arrays the
responses were written from: what the app must add is reading the right reports of the right responses,
building the design matrix (indicators against the chosen reference, numbers, squares) and passing the
mechanism's channel, weights and options along. Whole answers are compared, every field.

Row order differs (the app reads responses in id order), so sums are added in another order and Newton's
method, which stops within about 1e-8 standard errors of the maximum, stops at another point; the raking stops
within its tolerance of the margins at a point that depends on the order too. Measured differences are up to
3e-7 relative (1e-7 of a standard error): numbers are compared to 1e-6 relative. A misread report or a
swapped column moves them by whole percents."""

import json
import math
import threading

import numpy as np
import pytest
from django.db import connection
from django.urls import reverse

from ldp.regression import linear as linear_model
from ldp.regression import logistic
from ldp.regression.linear import per_report_values
from ldp.regression.logistic_power import respondents_for_odds_ratio
from ldp.weighting.raking import margin, rake
from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.aggregation.regression import rows as model_rows
from surveys.collection import builder, plan
from tests.aggregation.model_support import answer, make_survey

N = 1200
BAND, SEX = {"18-34": 0.3, "35-54": 0.35, "55+": 0.35}, {"Male": 0.49, "Female": 0.51}


@pytest.fixture
def survey(owner):
    return make_survey(owner)


@pytest.fixture
def reports(survey):
    return answer(survey, N)


@pytest.fixture
def ids(survey):
    return {q.order: q.id for q in plan.of(survey)}


def model(client, survey, query):
    # A planner margin of 0.1: the early-results rule (tested in test_refusals.py) lets N responses through.
    response = client.get(reverse("aggregation:api-models", args=[survey.slug]) + "?" + query + "&margin=0.1")
    return response.status_code, json.loads(response.content)


def indicators(values, k, reference):
    return [(values == j).astype(float) for j in range(k) if j != reference]


def finite(values):
    return [v if math.isfinite(v) else None for v in values]


def expected_logistic(found, outcome, level, label, terms, labels, references, n, dropped, weights=None,
                      odds_ratio=2.0, y=None, p=None, q=None, design=None):
    """The API's whole answer; weighted (`design`): the power at the weighted prevalence, times the design effect."""
    rate = y.mean() if design is None else np.average(y, weights=design.weights)
    baseline = float(np.clip((rate - q) / (p - q), 0.01, 0.99))
    respondents = respondents_for_odds_ratio(odds_ratio, p, q, baseline=baseline)
    if design is not None:
        respondents = math.ceil(respondents * design.design_effect)
    return {
        "model": "logistic", "outcome": {**outcome, "level": level, "level_label": label}, "terms": terms,
        "labels": labels, "references": references, "estimate": list(found.estimate),
        "std_error": list(found.std_error), "ci_low": list(found.ci_low), "ci_high": list(found.ci_high),
        "z": list(found.z), "p_value": list(found.p_values), "odds_ratio": finite(found.odds_ratio),
        "odds_ratio_low": finite(found.odds_ratio_low),
        "odds_ratio_high": finite(found.odds_ratio_high), "n": n, "dropped": dropped,
        "log_likelihood": found.log_likelihood, "null_log_likelihood": found.null_log_likelihood,
        "test": {"name": found.test, "statistic": found.statistic, "df": found.df, "p_value": found.p_value},
        "se": found.se, "confidence": 0.95, "weights": weights,
        "power": {"odds_ratio": odds_ratio, "baseline": baseline, "exposed": 0.5, "alpha": pytest.approx(0.05),
                  "power": 0.8, "respondents": respondents},
    }


def close(found, expected, rel):
    """`found` equals `expected`, numbers to `rel` (recursively: the whole answer)."""
    assert json.loads(json.dumps(found)) == _approx(expected, rel)


def _approx(value, rel):
    if isinstance(value, dict):
        return {key: _approx(item, rel) for key, item in value.items()}
    if isinstance(value, list):
        return [_approx(item, rel) for item in value]
    if isinstance(value, float):
        return pytest.approx(value, rel=rel, abs=1e-9)
    return value


def test_a_yes_no_outcome_is_ldps_fit_on_the_same_reports(owner_client, survey, reports, ids):
    band, sex, age = reports[2], reports[3], reports[4] + 18.0
    y = reports[1].astype(float)
    x = np.column_stack([np.ones(N), *indicators(band, 3, 1), sex, age, age**2])
    terms = ["(Intercept)", "q2=0", "q2=2", "q3=1", "q4", "q4^2"]
    mechanism = survey.questions.get(order=1).mechanism()
    query = (f"outcome={ids[1]}&covariates={ids[2]},{ids[3]}&covariates={ids[4]}&reference={ids[2]}:1"
             f"&square={ids[4]}")
    for se in ("observed", "opg"):
        status, body = model(owner_client, survey, query + f"&se={se}")
        assert status == 200, body
        found = logistic.fit(y, x, mechanism.p, mechanism.q_other, terms=terms, se=se)
        assert found.converged
        close(body, expected_logistic(
            found, {"id": ids[1], "order": 1, "text": "Smoked?"}, 1, "Yes", terms,
            ["Intercept", "2. Age band?: 18-34 (against 35-54)", "2. Age band?: 55+ (against 35-54)",
             "3. Sex?: Female (against Male)", "4. Age in years?", "4. Age in years?, squared"],
            [{"question": ids[2], "option": "35-54"}, {"question": ids[3], "option": "Male"}], N, 0,
            y=y, p=mechanism.p, q=mechanism.q_other), rel=1e-6)


def test_one_option_of_a_k_option_question_is_modelled_through_its_binary_channel(owner_client, survey, reports,
                                                                                    ids):
    cases = [(5, 2, "Often", reports[5] == 2), (7, 1, "Green", reports[7][:, 1] == 1)]  # krr; oue: its bit
    for order, level, label, y in cases:
        y = y.astype(float)
        mechanism = survey.questions.get(order=order).mechanism()
        x = np.column_stack([np.ones(N), *indicators(reports[2], 3, 0)])
        terms = ["(Intercept)", "q2=1", "q2=2"]
        found = logistic.fit(y, x, mechanism.p, mechanism.q_other, terms=terms)
        status, body = model(owner_client, survey, f"outcome={ids[order]}&level={level}&covariates={ids[2]}"
                                                   "&odds_ratio=1.5")
        assert status == 200, body
        text = survey.questions.get(order=order).text
        close(body, expected_logistic(
            found, {"id": ids[order], "order": order, "text": text}, level, label, terms,
            ["Intercept", "2. Age band?: 35-54 (against 18-34)", "2. Age band?: 55+ (against 18-34)"],
            [{"question": ids[2], "option": "18-34"}], N, 0, odds_ratio=1.5, y=y, p=mechanism.p,
            q=mechanism.q_other), rel=1e-6)


def test_a_numeric_mean_is_least_squares_of_its_unbiased_per_report_values(owner_client, survey, reports, ids):
    mechanism = survey.questions.get(order=6).mechanism()
    x = np.column_stack([np.ones(N), reports[3], reports[4] + 18.0])
    found = linear_model.fit(per_report_values(mechanism, reports[6]), x, terms=["(Intercept)", "q3=1", "q4"])
    status, body = model(owner_client, survey, f"outcome={ids[6]}&covariates={ids[3]},{ids[4]}")
    assert status == 200, body
    close(body, {
        "model": "linear", "outcome": {"id": ids[6], "order": 6, "text": "Hours online?", "level": None,
                                       "level_label": None},
        "terms": ["(Intercept)", "q3=1", "q4"],
        "labels": ["Intercept", "3. Sex?: Female (against Male)", "4. Age in years?"],
        "references": [{"question": ids[3], "option": "Male"}], "estimate": list(found.estimate),
        "std_error": list(found.std_error), "ci_low": list(found.ci_low), "ci_high": list(found.ci_high),
        "z": list(found.z), "p_value": list(found.p_values), "odds_ratio": None,
        "odds_ratio_low": None, "odds_ratio_high": None, "n": N, "dropped": 0,
        "log_likelihood": None, "null_log_likelihood": None, "test": None, "se": "HC1", "confidence": 0.95,
        "weights": None, "power": None}, rel=1e-6)
    assert body["estimate"][1] == pytest.approx(2.0, abs=3 * body["std_error"][1])  # the planted effect


def enter_margins(survey):
    for order, shares in ((2, BAND), (3, SEX)):
        question = survey.questions.get(order=order)
        entered = PopulationMargin.objects.create(question=question, source="Census")
        for option, share in zip(question.ordered_options(), shares.values(), strict=True):
            MarginShare.objects.create(margin=entered, option=option, share=share)


def write_answering(survey, n, orders):
    builder.write_responses(survey, {q.id: q.mechanism.encode_many(np.zeros(n, dtype=int))
                                     for q in plan.of(survey) if q.order in orders})


def test_a_weighted_fit_rakes_the_rows_used_and_takes_the_sandwich(owner_client, survey, reports, ids):
    enter_margins(survey)
    # 30 more responses without the age in years (a covariate), 20 without the age band (a margin): left out of
    # the model, and of its raking.
    for n, orders in ((30, (1, 2, 3)), (20, (1, 3, 4))):
        write_answering(survey, n, orders)
    y = reports[1].astype(float)
    design = rake([margin("Age band?", reports[2], dict(enumerate(BAND.values()))),
                   margin("Sex?", reports[3], dict(enumerate(SEX.values())))], cap=5.0)
    x = np.column_stack([np.ones(N), reports[3], reports[4] + 18.0])
    terms = ["(Intercept)", "q3=1", "q4"]
    mechanism = survey.questions.get(order=1).mechanism()
    found = logistic.fit(y, x, mechanism.p, mechanism.q_other, terms=terms, design=design)
    status, body = model(owner_client, survey, f"outcome={ids[1]}&covariates={ids[3]},{ids[4]}&weighted=on")
    assert status == 200, body
    summary = {**design.summary(), "left_out": 50}
    weights = {"margins": [{"question": "Age band?", "source": "Census", "shares": BAND},
                           {"question": "Sex?", "source": "Census", "shares": SEX}],
               **{key: summary[key] for key in ("n", "left_out", "min", "max", "design_effect", "effective_n",
                                                 "cap", "cap_met")}}
    close(body, expected_logistic(
        found, {"id": ids[1], "order": 1, "text": "Smoked?"}, 1, "Yes", terms,
        ["Intercept", "3. Sex?: Female (against Male)", "4. Age in years?"],
        [{"question": ids[3], "option": "Male"}], N, 50, weights=weights, y=y, p=mechanism.p,
        q=mechanism.q_other, design=design), rel=1e-6)
    assert body["se"] == "sandwich" and body["test"]["name"] == "wald"
    # A numeric mean weighted: the 50 added responses did not answer it, so the rows and their raking are the
    # first N's, and the fit is weighted least squares of the per-report values under the same design.
    hours = survey.questions.get(order=6).mechanism()
    linear = linear_model.fit(per_report_values(hours, reports[6]), x, terms=terms, design=design)
    status, body = model(owner_client, survey, f"outcome={ids[6]}&covariates={ids[3]},{ids[4]}&weighted=on")
    assert status == 200, body
    assert (body["n"], body["dropped"], body["se"]) == (N, 50, linear.se)
    close({key: body[key] for key in ("estimate", "std_error", "ci_low", "ci_high")},
          {"estimate": list(linear.estimate), "std_error": list(linear.std_error), "ci_low": list(linear.ci_low),
           "ci_high": list(linear.ci_high)}, rel=1e-6)
    assert body["weights"]["n"] == N and body["weights"]["effective_n"] == pytest.approx(design.effective_n)


def test_the_csv_is_the_apis_table_whole(owner_client, survey, reports, ids):
    query = f"outcome={ids[1]}&covariates={ids[2]},{ids[3]}"
    _, body = model(owner_client, survey, query)
    response = owner_client.get(reverse("aggregation:export-model", args=[survey.slug]) + "?" + query + "&margin=0.1")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert body["outcome"]["level"] == 1 and 'filename="models-model-q1-1.csv"' in response["Content-Disposition"]
    lines = response.content.decode().splitlines()
    assert lines[0] == ("term,label,estimate,std_error,ci_low,ci_high,z,term_p_value,odds_ratio,odds_ratio_low,"
                        "odds_ratio_high,"
                        "model,outcome_id,outcome_key,level,level_label,n,dropped,se,confidence,weighted,"
                        "log_likelihood,test,statistic,df,p_value")
    test = body["test"]
    expected = [
        [term, label, *(repr(body[c][i]) for c in ("estimate", "std_error", "ci_low", "ci_high", "z", "p_value",
                                                   "odds_ratio", "odds_ratio_low", "odds_ratio_high")),
         "logistic", str(ids[1]), "q1", "1", "Yes", str(N), "0", "observed", "0.95", "false",
         repr(body["log_likelihood"]), test["name"], repr(test["statistic"]), str(test["df"]),
         repr(test["p_value"])]
        for i, (term, label) in enumerate(zip(body["terms"], body["labels"], strict=True))]
    assert [line.split(",") for line in lines[1:]] == expected


@pytest.mark.django_db(transaction=True)
def test_responses_arriving_during_a_fit_are_in_none_of_its_counts(owner_client, survey, reports, ids, monkeypatch):
    enter_margins(survey)
    query = f"outcome={ids[1]}&covariates={ids[3]},{ids[4]}&weighted=on"
    _, before = model(owner_client, survey, query)
    read = model_rows.grouped

    def arriving(questions):  # 10 responses that answer the sex (a margin) alone, committed once the rows are read
        rows = read(questions)
        thread = threading.Thread(target=lambda: (write_answering(survey, 10, (3,)), connection.close()))
        thread.start()
        thread.join()
        return rows

    monkeypatch.setattr(model_rows, "grouped", arriving)
    assert model(owner_client, survey, query) == (200, before)
    monkeypatch.undo()
    _, after = model(owner_client, survey, query)  # a fit now counts them: left out, of the model and its raking
    left_out = before["weights"]["left_out"]
    assert (after["dropped"], after["weights"]["left_out"]) == (before["dropped"] + 10, left_out + 10)


def test_the_dashboards_weighted_model_names_the_margins_it_was_raked_to(owner_client, survey, reports, ids):
    enter_margins(survey)
    query = f"outcome={ids[1]}&covariates={ids[3]},{ids[4]}&weighted=on&margin=0.1"
    page = owner_client.get(reverse("aggregation:dashboard", args=[survey.slug]) + "?" + query).content.decode()
    assert ("sandwich standard errors through the raking. Margins: <strong>Age band?</strong> (Census), "
            "<strong>Sex?</strong> (Census).") in page
