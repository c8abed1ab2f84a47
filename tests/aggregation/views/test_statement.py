"""The privacy statement page: who reaches it, and every figure on it equal to the one the rest of the app shows
(the admin's epsilon, the respondent page's odds, the totals), or to ldp.disclosure's and the uniqueness count's
own answer for the same survey."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from ldp import disclosure as ldp_disclosure
from surveys.aggregation.privacy import statement, uniqueness
from surveys.aggregation.privacy.disclosure import epsilon_text
from surveys.collection import page, plan, submission
from surveys.collection.admin.survey import SurveyAdmin
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses
from tests.collection.pages import parse
from tests.conftest import login
from tests.factories import valid_payload


def url(survey):
    return reverse("aggregation:statement", args=[survey.slug])


def text_of(root, element_id):
    return root.by_id(element_id).text


def test_the_surveys_researcher_and_a_superuser_see_it_others_get_404_and_strangers_sign_in(
        client, owner, other_researcher, superuser, survey):
    assert client.get(url(survey)).status_code == 302  # to sign in
    assert login(client, other_researcher).get(url(survey)).status_code == 404
    assert login(client, owner).get(url(survey)).status_code == 200
    assert login(client, superuser).get(url(survey)).status_code == 200


def test_the_dashboard_and_the_survey_admin_page_link_to_it(client, owner, admin_client, survey):
    dashboard = login(client, owner).get(reverse("aggregation:dashboard", args=[survey.slug])).content.decode()
    assert f'<a href="{url(survey)}">' in dashboard
    admin = admin_client.get(reverse("admin:collection_survey_change", args=[survey.pk])).content.decode()
    assert f'<a href="{url(survey)}">Privacy statement</a>' in admin


def test_each_questions_epsilon_and_odds_are_the_admins_and_the_respondent_pages(owner_client, every_mechanism_survey):
    soup = parse(owner_client.get(url(every_mechanism_survey)).content)
    respondent, _client = page.context(every_mechanism_survey, preview=False)
    from surveys.collection import figures

    for q in plan.of(every_mechanism_survey):
        cells = [td.text for td in soup.by_id(f"question-{q.order}").find_all("td")]
        shown = figures.describe(q.mechanism)["shown"]
        odds = next(r["wording"].odds for r in respondent["questions"] if r["order"] == q.order)
        assert (cells[3], cells[4]) == (shown["epsilon"], f"{odds} to 1")
    admin_total = SurveyAdmin.epsilon_summary(None, every_mechanism_survey).split(" ")[0]
    assert text_of(soup, "statement-total") == (
        f"All questions together: ε = {admin_total} per respondent; seeing everything a respondent's browser sends "
        f"changes anyone's odds on their answers by at most {respondent['total_odds']} to 1.")


def test_the_breach_before_any_report_takes_every_answer_as_equally_likely(owner_client, survey):
    soup = parse(owner_client.get(url(survey)).content)
    for q in plan.of(survey):
        k = ldp_disclosure.answers(q.mechanism)
        found = ldp_disclosure.breach(q.mechanism, [1 / k] * k)
        cells = [td.text for td in soup.by_id(f"breach-{q.order}").find_all("td")]
        assert cells[1:] == [f"{100 * found.attacker_accuracy:.1f}%", f"{100 * found.baseline_accuracy:.1f}%"]
    assert "every answer equally likely" in soup.by_id("statement-prior").text


def test_with_reports_the_breach_takes_the_estimated_shares_and_the_release_is_stated_for_n(owner_client, survey):
    add_responses(survey, 80, seed=3)
    found = statement.generated(survey)
    from surveys.aggregation.results.service import survey_results

    shares = {r.question.id: list(r.estimate.simplex) for r in survey_results(survey).questions}
    n, delta = 80, ldp_disclosure.default_delta(80)
    soup = parse(owner_client.get(url(survey)).content)
    release = [li.text for li in soup.by_id("statement-release").find_all("li")]
    for row, said in zip(found.randomized, release, strict=False):
        q = row.question
        expected = ldp_disclosure.breach(q.mechanism, shares[q.id])
        assert (row.breach.attacker, row.breach.baseline) == pytest.approx(
            (expected.attacker_accuracy, expected.baseline_accuracy), abs=1e-12)
        central = ldp_disclosure.epsilon_c(float(row.epsilon), n, delta)
        assert said == f"{q.order}. {q.text}: ε = {epsilon_text(central)}"
        assert central < float(row.epsilon)  # amplified
    assert (found.responses, found.estimated, found.release_n) == (80, True, 80)


def test_the_uniqueness_counts_are_the_services(owner_client, direct_survey):
    add_responses(direct_survey, 30, seed=1)
    counted = uniqueness.measured(direct_survey).combination
    soup = parse(owner_client.get(url(direct_survey)).content)
    assert text_of(soup, "statement-unique") == (
        f"On the combination of their answers to the 2 questions sent as given, {counted.unique} of the 30 "
        f"respondents stored are alone, and {counted.below_k} are in a group smaller than 5 (the alone included).")
    # The breach and the release name the randomized questions only (1 and 3), then the whole record.
    assert [soup.by_id(f"breach-{order}") is not None for order in (1, 2, 3, 4)] == [True, False, True, False]
    assert [li.text.split(":")[0] for li in soup.by_id("statement-release").find_all("li")] == [
        "1. Cheated?", "3. Drugs?", "The whole record, all randomized questions together"]


def test_retention_is_stated_with_its_date_once_collection_ended(owner_client, survey):
    ended = timezone.now() - timedelta(days=3)
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED, closed_at=ended, retention_days=30)
    soup = parse(owner_client.get(url(survey)).content)
    assert text_of(soup, "statement-retention") == (
        f"Collection ended on {ended:%Y-%m-%d}; the responses are deleted 30 days later, on "
        f"{ended + timedelta(days=30):%Y-%m-%d}.")
    assert text_of(soup, "retention") == "Your responses are kept for 30 days after this survey closes, then deleted."


def test_its_version_is_the_plans_every_response_carries(owner_client, survey):
    shown = owner_client.get(url(survey)).content.decode()
    assert re.search(r"<dt>Configuration version</dt><dd><code>(\S+)</code>", shown)[1] == plan.of(survey).version


def test_it_is_in_arabic_right_to_left_for_an_arabic_reader(owner_client, survey):
    response = owner_client.get(url(survey), HTTP_ACCEPT_LANGUAGE="ar")
    assert re.search(r'<html lang="ar" dir="rtl">', response.content.decode())


def test_the_reader_chooses_the_releases_delta(owner_client, survey):
    add_responses(survey, 50, seed=2)
    soup = parse(owner_client.get(url(survey) + "?delta=1e-9").content)
    assert "with δ = 1e-09, for 50 respondents" in soup.by_id("release-heading").parent.text
    first = plan.of(survey).questions[0]
    loss = statement.loss_of(first.mechanism.sampler()).epsilon_up(4)
    assert soup.by_id("statement-release").find_all("li")[0].text == (
        f"1. {first.text}: ε = {epsilon_text(ldp_disclosure.epsilon_c(float(loss), 50, 1e-9))}")


@pytest.mark.parametrize("query, field", [("?delta=2", "delta"), ("?delta=x", "delta"), ("?delta=0", "delta"),
                                          ("?eps=1", "eps")])
def test_a_bad_delta_or_another_parameter_is_refused_naming_it(owner_client, survey, query, field):
    response = owner_client.get(url(survey) + query)
    assert response.status_code == 400
    assert response.content.decode().startswith(f"{field}: ")


def test_every_kind_is_stated_with_its_breach_before_and_after_reports(owner_client, kinds_survey):
    Survey.objects.filter(pk=kinds_survey.pk).update(planned_size=1000)  # the release's n before any report
    kinds_survey.refresh_from_db()
    for responses, n in ((0, 1000), (40, 40)):
        for _ in range(responses):
            assert submission.submit(kinds_survey, valid_payload(kinds_survey)).created
        soup = parse(owner_client.get(url(kinds_survey)).content)
        rows = {q.order: [td.text for td in soup.by_id(f"breach-{q.order}").find_all("td")][1:]
                for q in plan.of(kinds_survey)}
        assert all(re.fullmatch(r"\d+\.\d%", cell) for cells in rows.values() for cell in cells), rows
        assert len(soup.by_id("statement-release").find_all("li")) == 6
        assert f"for {n} respondents" in soup.by_id("release-heading").parent.text


def test_a_remembered_wave_states_its_remembered_questions_breach_for_one_wave_and_every_wave(owner_client, owner):
    from tests.aggregation.series_support import monthly, store_waves

    surveys = monthly(owner, waves=2)
    store_waves(surveys, 30, seed=1)
    response = owner_client.get(url(surveys[1]))
    assert response.status_code == 200
    soup = parse(response.content)
    from ldp.mechanisms.remembered import Composed

    remembered = [q.order for q in plan.of(surveys[1]) if isinstance(q.mechanism, Composed)]
    assert remembered and all("not computed for this mechanism" not in soup.by_id(f"breach-{order}").text
                              and "however many waves" in soup.by_id(f"breach-waves-{order}").text
                              for order in remembered)
