"""Margins gone stale behind the app's back (a question's mechanism changed by SQL, an option deleted or its
options replaced): the weighted figures are a 409 naming the question and what is wrong, on the estimates API and
the dashboard, never a figure; the unweighted ones are still shown; and such a survey does not open."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.collection import lifecycle
from surveys.collection.models import Option, Question, Survey
from tests.aggregation.weighting_support import enter
from tests.collection.test_admin import SURVEYS, messages_on

MECHANISM = ("question 2 “Age band?” is no longer sent as given (its mechanism is k-ary randomized response): a "
             "randomized answer does not say whom to weight")
GONE = "question 2 “Age band?”: its population shares add up to 0.7, not 1, or one is not above 0"
REPLACED = ("question 2 “Age band?”: option “Over 55” has no population share (the options changed since the "
            "margin was entered)")
AGE = {"18-34": "0.3", "35-54": "0.4", "55+": "0.3"}


def reason(problem):
    return (f"The population margins cannot be used: {problem}. A researcher of the survey sets them again on its "
            "results page (Population margins).")


def mechanism_changed(survey):
    Question.objects.filter(survey=survey, order=2).update(mechanism_name="krr", epsilon=1.0)


def option_deleted(survey):
    Option.objects.filter(question__survey=survey, label="55+").delete()  # its share goes with it


def options_replaced(survey):
    Option.objects.filter(question__survey=survey, label="55+").update(label="Over 55")  # a share is kept by option
    option = Option.objects.get(label="Over 55")
    option.population_share.delete()


STALE = [(mechanism_changed, MECHANISM), (option_deleted, GONE), (options_replaced, REPLACED)]


@pytest.mark.parametrize("spoil, problem", STALE, ids=["mechanism", "option deleted", "option without a share"])
def test_the_weighted_estimates_are_a_409_naming_the_question(owner_client, direct_survey, spoil, problem):
    enter(direct_survey, 2, AGE)
    spoil(direct_survey)
    url = reverse("aggregation:api-estimates", args=[direct_survey.slug])
    response = owner_client.get(url + "?weighted=on")
    assert (response.status_code, response.json()) == (409, {"error": {"code": "unavailable", "field": "weighted",
                                                                       "reason": reason(problem)}})
    assert owner_client.get(url).status_code == 200  # the unweighted figures need no margin


@pytest.mark.parametrize("spoil, problem", STALE[:2], ids=["mechanism", "option deleted"])
def test_the_weighted_dashboard_is_a_409_page_saying_why_and_where_to_mend_it(owner_client, direct_survey, spoil,
                                                                              problem):
    enter(direct_survey, 2, AGE)
    spoil(direct_survey)
    url = reverse("aggregation:dashboard", args=[direct_survey.slug])
    response = owner_client.get(url + "?weighted=on")
    page = response.content.decode()
    assert response.status_code == 409 and "%" not in page.split("<h1>", 1)[1]
    assert f"The weighted figures cannot be computed: {reason(problem)}" in page
    assert f'<a href="{reverse("aggregation:margins", args=[direct_survey.slug])}">' in page
    assert owner_client.get(url).status_code == 200


@pytest.mark.parametrize("spoil, problem", STALE, ids=["mechanism", "option deleted", "option without a share"])
def test_a_survey_with_stale_margins_does_not_open(direct_survey, spoil, problem):
    Survey.objects.filter(pk=direct_survey.pk).update(status=Survey.Status.DRAFT)
    direct_survey.refresh_from_db()
    enter(direct_survey, 2, AGE)
    spoil(direct_survey)
    with pytest.raises(ValidationError) as refused:
        lifecycle.open_survey(direct_survey)
    assert problem in refused.value.messages[0]
    assert Survey.objects.get(pk=direct_survey.pk).status == Survey.Status.DRAFT


def test_the_admins_open_button_says_why_and_a_sound_margin_opens(client, superuser, direct_survey):
    Survey.objects.filter(pk=direct_survey.pk).update(status=Survey.Status.DRAFT)
    enter(direct_survey, 2, AGE)
    client.force_login(superuser)
    lifecycle.open_survey(Survey.objects.get(pk=direct_survey.pk))  # sound: it opens
    Survey.objects.filter(pk=direct_survey.pk).update(status=Survey.Status.DRAFT)
    Question.objects.filter(survey=direct_survey, order=2).update(mechanism_name="krr", epsilon=0.2)
    response = client.post(f"{SURVEYS}{direct_survey.pk}/open/", follow=True)
    assert messages_on(response) == [f"Covariates: cannot open: {MECHANISM}"]
    assert Survey.objects.get(pk=direct_survey.pk).status == Survey.Status.DRAFT


def test_a_report_export_with_stale_margins_is_a_409_page_before_anything_is_prepared(owner_client, direct_survey):
    enter(direct_survey, 2, AGE)
    mechanism_changed(direct_survey)
    response = owner_client.get(reverse("aggregation:export-reports-csv", args=[direct_survey.slug]))
    assert response.status_code == 409
    assert f"The weighted figures cannot be computed: {reason(MECHANISM)}" in response.content.decode()
    assert not direct_survey.prepared_exports.exists()
