"""The results page's population margins, /results/<slug>/margins/: a researcher of the survey (no staff member)
types each option's share or pastes a census table, sees every problem beside its question with nothing stored,
removes a margin by emptying its boxes, and copies another wave's; the dashboard offers the page."""

import html

import pytest
from django.urls import reverse

from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import waves
from surveys.collection.models import Question
from tests.aggregation.api.test_margins import stored
from tests.collection.pages import parse
from tests.conftest import login
from tests.history.test_admin_recording import recorded


def url(survey):
    return reverse("aggregation:margins", args=[survey.slug])


def ids(survey):
    return {q.order: q.pk for q in survey.ordered_questions()}


def typed(survey, source="Census 2021", age=("0.3", "0.4", "0.3")):
    q = ids(survey)
    return {f"source-{q[2]}": source, **{f"share-{q[2]}-{j}": share for j, share in enumerate(age)},
            f"table-{q[2]}": "", f"source-{q[4]}": "", f"table-{q[4]}": ""}


def problems_of(response, question):
    found = parse(response.content).by_id(f"problems-{question}")
    return [item.text for item in found.find_all("li")] if found is not None else []


def test_a_researcher_who_is_not_staff_sets_margins_by_typing_them(owner_client, owner, direct_survey):
    assert not owner.is_staff
    response = owner_client.post(url(direct_survey), typed(direct_survey))
    assert (response.status_code, response["Location"]) == (302, url(direct_survey) + "?saved=1")
    assert stored(direct_survey) == [(2, "Census 2021", "18-34", "0.300000"), (2, "Census 2021", "35-54", "0.400000"),
                                     (2, "Census 2021", "55+", "0.300000")]
    page = owner_client.get(response["Location"])
    shown = parse(page.content)
    assert "The population margins were saved." in page.content.decode()
    q = ids(direct_survey)
    assert [shown.by_id(f"share-{q[2]}-{j}").attrs["value"] for j in range(3)] == ["0.3", "0.4", "0.3"]
    assert shown.by_id(f"source-{q[2]}").attrs["value"] == "Census 2021"
    assert [change[:2] for change in recorded(direct_survey.pk)] == [("owner", "changed")]


@pytest.mark.parametrize("table", [
    "option,share\n18-34,0.3\n35-54,0.4\n55+,0.3\n",
    "Option\tShare\n 55+ \t0.3\n18-34\t0.3\n\n35-54\t0.4",
    "0,0.3\n1,0.4\n2,0.3",
    '"18-34",0.3\n"35-54",0.4\n"55+",0.3',
], ids=["csv with a header", "tabs, another order, a blank line", "by index", "quoted"])
def test_a_pasted_table_sets_the_shares(owner_client, direct_survey, table):
    q = ids(direct_survey)
    data = typed(direct_survey, age=("", "", "")) | {f"table-{q[2]}": table}
    assert owner_client.post(url(direct_survey), data).status_code == 302
    assert [row[2:] for row in stored(direct_survey)] == [("18-34", "0.300000"), ("35-54", "0.400000"),
                                                          ("55+", "0.300000")]


def test_every_problem_is_shown_beside_its_question_and_nothing_is_stored(owner_client, direct_survey):
    q = ids(direct_survey)
    owner_client.post(url(direct_survey), typed(direct_survey))
    before = stored(direct_survey)
    data = typed(direct_survey, age=("0.3", "0.4", "0.31")) | {
        f"source-{q[4]}": "", f"table-{q[4]}": "North,0.5\nEast;0.5"}
    response = owner_client.post(url(direct_survey), data)
    assert response.status_code == 400
    assert problems_of(response, q[2]) == ["question 2 “Age band?”: the shares must add up to 1; they add up to "
                                           "1.01."]
    assert problems_of(response, q[4]) == ["question 4 “Region?”, line 2 of the table: give two columns, the "
                                           "option and its share."]
    page = parse(response.content)
    assert page.by_id(f"share-{q[2]}-2").attrs["value"] == "0.31"  # what was typed, to correct
    assert page.by_id(f"share-{q[2]}-2").attrs["aria-invalid"] == "true"
    assert "Nothing was saved" in response.content.decode()
    assert stored(direct_survey) == before


def test_a_missing_source_and_a_missing_share_are_named(owner_client, direct_survey):
    q = ids(direct_survey)
    response = owner_client.post(url(direct_survey), typed(direct_survey, source="", age=("0.3", "", "0.7")))
    assert problems_of(response, q[2]) == [
        "question 2 “Age band?”: say where the shares come from (the source, e.g. a census table).",
        "question 2 “Age band?”: give a share for every option of the question (the weights need the whole "
        "population); missing: “35-54”."]
    assert not PopulationMargin.objects.exists()


def test_emptying_a_questions_boxes_removes_its_margin(owner_client, direct_survey):
    owner_client.post(url(direct_survey), typed(direct_survey))
    assert owner_client.post(url(direct_survey), typed(direct_survey, source="", age=("", "", ""))).status_code == 302
    assert not PopulationMargin.objects.exists() and not MarginShare.objects.exists()


def test_a_wave_copies_another_waves_margins_on_the_page(owner_client, direct_survey):
    owner_client.post(url(direct_survey), typed(direct_survey))
    second = waves.run_again(direct_survey)
    PopulationMargin.objects.filter(question__survey=second).delete()
    page = parse(owner_client.get(url(second)).content)
    assert [(o.attrs["value"], o.text) for o in page.by_id("copy-from").find_all("option")] == [("1", "Wave 1: "
                                                                                                  "Covariates")]
    assert owner_client.post(url(second), {"copy_from": "1"}).status_code == 302
    assert [row[1:] for row in stored(second)] == [row[1:] for row in stored(direct_survey)]
    response = owner_client.post(url(second), {"copy_from": "7"})
    assert response.status_code == 400
    assert "This survey's series has no other wave 7 that you may see." in html.unescape(response.content.decode())


def test_stale_margins_are_shown_to_be_set_again(owner_client, direct_survey):
    owner_client.post(url(direct_survey), typed(direct_survey))
    Question.objects.filter(survey=direct_survey, order=2).update(mechanism_name="krr", epsilon=1.0)
    Question.objects.filter(survey=direct_survey, order=4).update(mechanism_name="direct", epsilon=None)
    response = owner_client.get(url(direct_survey))
    assert response.status_code == 200
    assert "question 2 “Age band?” is no longer sent as given" in response.content.decode()


def test_the_dashboard_offers_the_page_and_outsiders_do_not_reach_it(client, owner, other_researcher, direct_survey):
    login(client, owner)
    dashboard = client.get(reverse("aggregation:dashboard", args=[direct_survey.slug])).content.decode()
    assert f'<a href="{url(direct_survey)}">Set population margins</a>' in dashboard
    login(client, other_researcher)
    assert client.get(url(direct_survey)).status_code == 404
    assert client.post(url(direct_survey), typed(direct_survey)).status_code == 404
    client.logout()
    assert client.post(url(direct_survey), typed(direct_survey)).status_code == 302  # to sign in
    assert not PopulationMargin.objects.exists()


def test_the_page_answers_only_get_and_post(owner_client, direct_survey):
    assert [owner_client.generic(method, url(direct_survey)).status_code for method in ("PUT", "DELETE", "PATCH")] == [
        405, 405, 405]
    assert not PopulationMargin.objects.filter(question__survey=direct_survey).exists()
