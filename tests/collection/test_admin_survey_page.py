"""The survey page as a new admin uses it: options typed with the question, order by position,
Open / Close buttons with the respondent link, the live privacy figures endpoint, View on site."""


import math
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.urls import include, path

import ldp
from surveys.collection import plan, submission
from surveys.collection import urls as collection_urls
from surveys.collection.models import Option, Question, Survey
from tests.collection.helpers import question
from tests.collection.pages import parse
from tests.collection.test_admin import (
    SURVEYS,
    add_inline_forms,
    current_form,
    inline_index,
    messages_on,
    new_survey_form,
    set_question,
    survey_url,
    yes_no,
)
from tests.factories import make_user, saved_total, valid_payload

FIGURES = f"{SURVEYS}privacy-figures/"
TOTAL = f"{SURVEYS}privacy-total/"


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def choice(text, options, mechanism="krr", epsilon=1.0):
    return {"text": text, "kind": "single_choice", "mechanism_name": mechanism, "epsilon": epsilon,
            "q": None, "options_text": options}


def labels_of(q):
    return list(q.options.order_by("order").values_list("order", "label"))


# --- options typed with the question ----------------------------------------------------------


def test_options_typed_with_a_new_question_are_created_in_line_order(admin_client):
    data = add_inline_forms(new_survey_form(admin_client), "questions",
                            choice("Colour?", "Red\n\n  Green  \nBlue\n"))
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 302, response.content
    q = Survey.objects.get(slug="habits").questions.get()
    assert labels_of(q) == [(0, "Red"), (1, "Green"), (2, "Blue")]
    assert q.mechanism() == ldp.KaryRR(1.0, 3)


@pytest.mark.parametrize("options,error", [
    ("", "A single-choice question needs at least two options, one per line."),
    ("Only one\n\n", "A single-choice question needs at least two options, one per line."),
    ("Red\nBlue\nred", "Each option only once: Red, red."),
], ids=["none", "one", "duplicate"])
def test_a_single_choice_question_without_two_distinct_options_is_refused_on_its_field(admin_client, options, error):
    data = add_inline_forms(new_survey_form(admin_client), "questions", choice("Colour?", options))
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 200
    page = parse(response.content)
    row = page.find("div", **{"class": "form-row errors field-options_text"})
    assert row is not None and error in row.text
    assert not Survey.objects.filter(slug="habits").exists() and not Option.objects.exists()


@pytest.mark.slow
def test_a_yes_no_question_refuses_options(admin_client):
    data = add_inline_forms(new_survey_form(admin_client), "questions", {**yes_no(1, epsilon=1.0),
                                                                        "options_text": "Maybe"})
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 200
    assert "Leave the options empty for a yes/no question" in response.content.decode()
    assert not Survey.objects.filter(slug="habits").exists()


@pytest.mark.slow
def test_the_options_of_a_saved_question_are_prefilled_and_replaced_on_edit(admin_client, survey):
    data = current_form(admin_client, survey_url(survey), "survey_form")
    index = inline_index(data, question(survey, 3))
    assert data[f"questions-{index}-options_text"] == ["Never\nSometimes\nOften"]
    data[f"questions-{index}-options_text"] = ["Never\nOnce\nOften\nDaily"]
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 302, response.content
    assert labels_of(question(survey, 3)) == [(0, "Never"), (1, "Once"), (2, "Often"), (3, "Daily")]
    assert labels_of(question(survey, 4)) == [(0, "A"), (1, "B"), (2, "C"), (3, "D")]  # untouched


def test_a_new_question_is_explained_with_the_number_of_options_typed(admin_client):
    # The effective epsilon does not depend on k, but what the answers are worth does.
    at_five = ldp.KaryRR(1.0, 5)
    assert ldp.respondents_needed(at_five, 0.05) != ldp.respondents_needed(ldp.KaryRR(1.0, 2), 0.05)
    data = add_inline_forms(new_survey_form(admin_client), "questions", choice("Which?", "A\nB\nC\nD\nE"))
    assert admin_client.post(f"{SURVEYS}add/", data).status_code == 302
    survey = Survey.objects.get(slug="habits")
    text = parse(admin_client.get(survey_url(survey)).content).text
    assert f"{ldp.respondents_needed(at_five, 0.05):,} respondents for ±5 points" in text


# --- order follows the rows -------------------------------------------------------------------


def orders(survey):
    return list(survey.questions.order_by("order").values_list("order", "text"))


@pytest.mark.slow
def test_swapping_two_positions_saves_without_a_duplicate_order_error(admin_client, survey):
    data = set_question(current_form(admin_client, survey_url(survey), "survey_form"), question(survey, 1),
                        position=2)
    data = set_question(data, question(survey, 2), position=1)
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 302, response.content
    assert orders(survey) == [(1, "Drove drunk?"), (2, "Cheated?"), (3, "Drugs?"), (4, "Party?")]


@pytest.mark.slow
def test_rows_are_numbered_by_position_ties_by_row_and_new_rows_go_last(admin_client, survey):
    data = current_form(admin_client, survey_url(survey), "survey_form")
    for q in survey.questions.all():
        set_question(data, q, position=7)  # all equal: the rows' order decides
    set_question(data, question(survey, 4), position=1)
    add_inline_forms(data, "questions", {**yes_no(0, epsilon=0.1), "survey": survey.pk, "text": "New?"})
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 302, response.content
    assert orders(survey) == [(1, "Party?"), (2, "Cheated?"), (3, "Drove drunk?"), (4, "Drugs?"), (5, "New?")]


def test_the_order_of_a_new_survey_is_the_order_of_its_rows(admin_client):
    data = add_inline_forms(new_survey_form(admin_client), "questions",
                            {**yes_no(1, epsilon=0.5), "text": "First?", "position": 1},
                            {**yes_no(1, epsilon=0.5), "text": "Second?", "position": 1})
    assert admin_client.post(f"{SURVEYS}add/", data).status_code == 302
    assert orders(Survey.objects.get(slug="habits")) == [(1, "First?"), (2, "Second?")]


# --- Open / Close buttons ---------------------------------------------------------------------


def as_draft(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    return Survey.objects.get(pk=survey.pk)


@pytest.mark.slow
def test_the_open_button_opens_and_its_message_links_to_the_respondents_page(admin_client, survey):
    survey = as_draft(survey)
    page = parse(admin_client.get(survey_url(survey)).content)
    assert page.find("form", action=f"{SURVEYS}{survey.pk}/open/") is not None
    response = admin_client.post(f"{SURVEYS}{survey.pk}/open/", follow=True)
    assert response.redirect_chain == [(survey_url(survey), 302)]
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN
    link = parse(response.content).find("ul", **{"class": "messagelist"}).find("a", href="http://testserver/s/health/")
    assert link is not None and link.text == "http://testserver/s/health/"


def test_the_open_message_escapes_the_title(admin_client, survey):
    survey = as_draft(survey)
    Survey.objects.filter(pk=survey.pk).update(title="<b>Bold</b>")
    response = admin_client.post(f"{SURVEYS}{survey.pk}/open/", follow=True)
    assert "&lt;b&gt;Bold&lt;/b&gt;: opened." in response.content.decode()


def test_a_refused_open_shows_the_problems_and_stays_on_the_page(admin_client, survey):
    survey = as_draft(survey)
    question(survey, 3).options.filter(order__gt=0).delete()
    response = admin_client.post(f"{SURVEYS}{survey.pk}/open/", follow=True)
    assert response.redirect_chain == [(survey_url(survey), 302)]
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT
    assert "Health: cannot open: question 3 needs 2 to 32 options, has 1" in messages_on(response)


@pytest.mark.slow
def test_the_close_button_closes_an_open_survey(admin_client, survey):
    page = parse(admin_client.get(survey_url(survey)).content)
    assert page.find("form", action=f"{SURVEYS}{survey.pk}/close/") is not None
    response = admin_client.post(f"{SURVEYS}{survey.pk}/close/", follow=True)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.CLOSED
    assert "Health: closed." in messages_on(response)


def test_staff_who_may_only_view_surveys_get_no_button_and_cannot_open(client, survey):
    survey = as_draft(survey)
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__in=["view_survey", "view_question"]))
    client.force_login(viewer)
    page = parse(client.get(survey_url(survey)).content)
    assert page.find("form", action=f"{SURVEYS}{survey.pk}/open/") is None
    assert client.post(f"{SURVEYS}{survey.pk}/open/").status_code == 403
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


def test_the_buttons_need_a_post_with_the_csrf_token(survey, superuser):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(superuser)
    assert browser.get(f"{SURVEYS}{survey.pk}/close/").status_code == 405
    assert browser.post(f"{SURVEYS}{survey.pk}/close/").status_code == 403
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN


@pytest.mark.slow
def test_the_survey_page_shows_the_respondent_link_with_its_copy_button_and_qr_code(admin_client, survey):
    page = parse(admin_client.get(survey_url(survey)).content)
    assert page.by_id("share-url").attrs["value"] == "http://testserver/s/health/"
    assert page.find("button", **{"data-copy": "share-url"}) is not None
    assert page.find("svg") is not None
    assert any(script.attrs.get("src", "").endswith("js/share.js") for script in page.find_all("script"))
    assert parse(admin_client.get(f"{SURVEYS}add/").content).by_id("share-url") is None


# --- View on site -----------------------------------------------------------------------------


def test_a_published_survey_is_viewed_on_its_respondents_page(survey):
    assert survey.get_absolute_url() == "/s/health/"
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    assert Survey.objects.get(pk=survey.pk).get_absolute_url() == "/s/health/"


def _placeholder(request, slug):  # pragma: no cover - never requested
    raise AssertionError


urlpatterns = [path("", include((collection_urls.urlpatterns + [
    path("s/<slug:slug>/preview/", _placeholder, name="preview")], "collection")))]


@pytest.mark.urls(__name__)
def test_a_draft_is_viewed_on_its_staff_preview(survey):
    assert as_draft(survey).get_absolute_url() == "/s/health/preview/"


def test_the_survey_page_links_to_view_on_site(admin_client, survey):
    page = parse(admin_client.get(survey_url(survey)).content)
    link = page.find("a", **{"class": "viewsitelink"})
    assert link is not None
    assert admin_client.get(link.attrs["href"])["Location"] == "http://testserver/s/health/"


# --- live privacy figures ---------------------------------------------------------------------


@pytest.mark.parametrize("query,mechanism", [
    ("mechanism=qrr&q=0.5", ldp.QRandomizedResponse("0.5")),
    ("mechanism=bitflip&epsilon=1", ldp.BitFlip(1.0)),
    ("mechanism=krr&epsilon=1&k=5", ldp.KaryRR(1.0, 5)),
    ("mechanism=sue&epsilon=0.7&k=3", ldp.SymmetricUnary(0.7, 3)),
    ("mechanism=oue&epsilon=2&k=4", ldp.OptimizedUnary(2.0, 4)),
])
def test_the_figures_endpoint_answers_what_ldp_computes(admin_client, query, mechanism):
    response = admin_client.get(f"{FIGURES}?{query}")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    figures = response.json()
    eps = mechanism.effective_epsilon
    assert figures["epsilon"] == eps
    assert figures["q_equivalent"] == mechanism.q_equivalent
    assert figures["odds"] == ldp.odds_factor(eps)
    assert figures["best_guess"] == 100 * ldp.best_guess(eps)
    assert figures["respondents"] == ldp.respondents_needed(mechanism, 0.05)
    assert figures["k"] == mechanism.k
    up = ldp.planning.rounding.loss_of(mechanism.sampler())  # rounded up from the integers, never to nearest
    assert f"ε = {up.epsilon_up(4)}" in figures["summary"] and f"{up.odds_up(2)}:1" in figures["summary"]
    assert figures["shown"] == {"epsilon": str(up.epsilon_up(4)), "odds": str(up.odds_up(2)),
                                "guess": str(up.guess_up(1))}
    assert figures["loss"] == {"ratio": str(up.ratio), "rational": str(up.rational)}


MECHANISMS = [ldp.QRandomizedResponse("0.5"), ldp.BitFlip(1.0), ldp.KaryRR(1.0, 5), ldp.OptimizedUnary(2.0, 4),
              ldp.MultiSelect(2.0, 4, at_most=1), ldp.DiscreteLaplace(1.0, "0", "10", "1")]


@pytest.mark.parametrize("count", range(len(MECHANISMS) + 1))
def test_the_total_endpoint_adds_the_figures_losses_as_the_saved_survey_does(admin_client, count):
    chosen = MECHANISMS[:count]
    losses = [admin_client.get(f"{FIGURES}?{query}").json()["loss"] for query in (
        "mechanism=qrr&q=0.5", "mechanism=bitflip&epsilon=1", "mechanism=krr&epsilon=1&k=5",
        "mechanism=oue&epsilon=2&k=4", "mechanism=multiselect&epsilon=2&k=4&at_most=1",
        "mechanism=dlaplace&epsilon=1&lo=0&hi=10&step=1")[:count]]
    query = "&".join(f"loss={loss['ratio']};{loss['rational']}" for loss in losses)
    response = admin_client.get(f"{TOTAL}?{query}")
    assert response.status_code == 200
    assert response.json() == {"epsilon": saved_total(*chosen)}


def test_the_total_rounds_up_where_the_sum_of_rounded_floats_would_not(admin_client):
    # ln 3 + 1 (a discrete Laplace loss is a rational): 2.098612..., so 2.0987; and 1 + 1 + 1 stays 3.0000
    assert admin_client.get(f"{TOTAL}?loss=3;0&loss=1;1").json() == {"epsilon": "2.0987"}
    assert admin_client.get(f"{TOTAL}?loss=1;1&loss=1;1&loss=1;1").json() == {"epsilon": "3.0000"}
    assert admin_client.get(f"{TOTAL}?loss=1;1/10&loss=1;2/10").json() == {"epsilon": "0.3000"}


@pytest.mark.parametrize("query", ["loss=3", "loss=3;", "loss=-3;0", "loss=1/2;0", "loss=3/0;0", "loss=3;1/0",
                                   "loss=3;0.5", "loss=3;0&loss=x", "&".join(["loss=1;0"] * 501)])
def test_the_total_endpoint_refuses_what_is_not_a_loss(admin_client, query):
    response = admin_client.get(f"{TOTAL}?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "loss"


@pytest.mark.parametrize("epsilon,strength", [(1.0, "strong"), (3.0, "moderate"), (3.5, "weak")])
def test_the_figures_say_how_strong_the_privacy_is(admin_client, epsilon, strength):
    assert admin_client.get(f"{FIGURES}?mechanism=bitflip&epsilon={epsilon}").json()["strength"] == strength


@pytest.mark.parametrize("query,field", [
    ("", "mechanism"),
    ("mechanism=rappor&epsilon=1", "mechanism"),
    ("mechanism=qrr", "q"),
    ("mechanism=qrr&q=abc", "q"),
    ("mechanism=qrr&q=1.5", "q"),
    ("mechanism=qrr&q=1/5000000001", "q"),  # (1 + q)/2 needs a denominator above 2^32
    ("mechanism=qrr&q=3/2", "q"),
    ("mechanism=qrr&q=0.5&epsilon=1", "epsilon"),
    ("mechanism=bitflip&epsilon=-1", "epsilon"),
    ("mechanism=bitflip&epsilon=nan", "epsilon"),
    ("mechanism=bitflip&epsilon=1&k=3", "k"),
    ("mechanism=krr&epsilon=1&k=1", "k"),
    ("mechanism=krr&epsilon=1&k=33", "k"),
])
def test_the_figures_endpoint_refuses_bad_input_in_the_api_error_shape(admin_client, query, field):
    response = admin_client.get(f"{FIGURES}?{query}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert set(error) == {"code", "field", "reason"} and error["field"] == field and error["reason"]


def test_the_figures_endpoint_is_for_staff_only(client, owner):
    """Refused in the API's shape (tests/test_api_error_codes.py has the bodies), never the admin's login page."""
    def code():
        response = client.get(f"{FIGURES}?mechanism=qrr&q=0.5")
        return response.status_code, response.json()["error"]["code"]

    assert code() == (403, "not_authenticated")
    client.force_login(owner)
    assert code() == (403, "not_authenticated")
    client.force_login(make_user("staff", is_staff=True))
    assert code() == (403, "permission_denied")


def test_the_survey_page_tells_its_script_which_mechanisms_fit_which_kind(admin_client, survey):
    import json

    config = json.loads(parse(admin_client.get(survey_url(survey)).content).by_id("survey-admin-config").raw_text)
    assert config["figures_url"] == FIGURES
    assert config["mechanisms"] == {"yes_no": ["qrr", "bitflip"], "single_choice": ["krr", "sue", "oue", "direct"]}
    assert config["parameters"] == {  # the boxes a row shows and its figures request sends
        "qrr": ["q"], "bitflip": ["epsilon"], "krr": ["epsilon", "k"], "sue": ["epsilon", "k"], "oue": ["epsilon", "k"],
        "direct": ["k"], "multiselect": ["at_most", "epsilon", "k"], "onebit": ["epsilon", "hi", "lo", "step"],
        "dlaplace": ["epsilon", "hi", "lo", "step"], "direct_number": ["hi", "lo", "step"]}
    assert Question.objects.count() == 4


@pytest.mark.parametrize("page", ["add", "change"])
def test_the_access_field_says_plainly_that_the_questions_are_public(admin_client, invitation_only, page):
    url = f"{SURVEYS}add/" if page == "add" else survey_url(invitation_only)
    help_text = parse(admin_client.get(url).content).by_id("id_access_helptext")
    assert help_text is not None
    assert "Invitation links limit who can answer, not who can read: the questions are public." in help_text.text
    assert "Anyone who knows or guesses the slug can read them on the survey's page and in its API" in help_text.text


def test_the_admin_figures_round_epsilon_odds_and_guess_up_never_to_nearest():
    from surveys.collection import figures

    said = figures.describe(ldp.BitFlip(1.1))  # epsilon 1.09999999997, e^eps 3.0042, guess 75.03%
    assert said["shown"] == {"epsilon": "1.1000", "odds": "3.01", "guess": "75.1"}
    assert "at most 3.01:1" in said["summary"] and "at most 75.1% of the time" in said["summary"]


def uniform_variance(p, q, k):
    lam = q + (p - q) / k
    return lam * (1 - lam) / (p - q) ** 2


def textbook_variances(epsilon, k):
    """The channels' textbook p and q (Wang et al. 2017), without the samplers' integer rounding."""
    e = math.exp(epsilon)
    return {"krr": uniform_variance(e / (e + k - 1), 1 / (e + k - 1), k),
            "sue": uniform_variance(math.exp(epsilon / 2) / (math.exp(epsilon / 2) + 1),
                                    1 / (math.exp(epsilon / 2) + 1), k),
            "oue": uniform_variance(0.5, 1 / (e + 1), k)}


@pytest.mark.parametrize("kind,mechanism,epsilon,k,best", [
    ("single_choice", "oue", 1.0, 8, "krr"),  # k-RR wins below about 3 e^eps + 2 = 10.2 options
    ("single_choice", "krr", 1.0, 12, "oue"),
    ("single_choice", "oue", 1.0, 4, "krr"),
    ("ordinal", "sue", 2.0, 5, "krr"),
    ("single_choice", "krr", 0.5, 8, "oue"),  # 3 e^0.5 + 2 = 6.9
])
def test_the_figures_advise_the_mechanism_of_lowest_variance_among_the_kinds(admin_client, kind, mechanism,
                                                                             epsilon, k, best):
    figures = admin_client.get(f"{FIGURES}?mechanism={mechanism}&epsilon={epsilon}&k={k}&kind={kind}").json()
    textbook = textbook_variances(epsilon, k)
    assert min(textbook, key=textbook.get) == best
    assert figures["lowest_variance_mechanism"] == best
    assert figures["variance_ratio"] == pytest.approx(textbook[mechanism] / textbook[best], rel=1e-6)
    names = {"krr": "k-ary randomized response", "oue": "the optimized unary encoding"}
    assert (f". Lower variance at this ε and number of options: {names[best]}, "
            f"{figures['variance_ratio']:.2f} times less (") in figures["summary"]


@pytest.mark.parametrize("query", ["mechanism=krr&epsilon=1&k=3&kind=single_choice",  # k-RR is the lowest
                                   "mechanism=oue&epsilon=0.5&k=12&kind=ordinal"])
def test_the_figures_say_when_the_chosen_mechanism_is_the_lowest_variance(admin_client, query):
    figures = admin_client.get(f"{FIGURES}?{query}").json()
    assert figures["variance_ratio"] == 1.0
    assert figures["summary"].endswith(". Lowest variance at this ε and number of options: this mechanism")


@pytest.mark.parametrize("query", ["mechanism=krr&epsilon=1&k=12&kind=numeric",  # bins: k-RR is the only one
                                   "mechanism=krr&epsilon=1&k=12",  # no kind: no advice
                                   "mechanism=qrr&q=0.5&kind=yes_no", "mechanism=direct&k=3&kind=single_choice"])
def test_the_figures_give_no_advice_where_there_is_no_choice(admin_client, query):
    figures = admin_client.get(f"{FIGURES}?{query}").json()
    assert "lowest_variance_mechanism" not in figures and "variance" not in (figures["summary"] or "")


# The question rows of multi-select, numeric and ordinal questions: options, levels with scores and bins
# typed with the question, "Prefer not to say" added in one click, clear refusals on the field at fault, the
# budget with each question's effective epsilon, figures for multi-select and numeric means, and the rows
# frozen once the survey has a report.
D = Decimal


def row(text, kind, mechanism, options="", epsilon=1.0, **shape):
    return {"text": text, "kind": kind, "mechanism_name": mechanism, "epsilon": epsilon, "q": None,
            "options_text": options, **shape}


def save(admin_client, *rows, budget=10):
    return admin_client.post(f"{SURVEYS}add/", add_inline_forms(new_survey_form(admin_client, epsilon_budget=budget),
                                                                "questions", *rows))


def field_error(response, field):
    found = parse(response.content).find("div", **{"class": f"form-row errors field-{field}"})
    return found.text if found is not None else None


def options_of(q):
    return [(o.label, o.score, o.lower) for o in q.ordered_options()]


# --- each kind saves with its options -----------------------------------------------------------


@pytest.mark.slow
def test_each_kind_saves_with_its_options_levels_and_bins(admin_client):
    response = save(
        admin_client,
        row("Used?", "multi_select", "multiselect", "Tobacco\nAlcohol\nCannabis", epsilon=2.0, at_most=2),
        row("Hours?", "numeric", "onebit", lo=0, hi=100, step=1),
        row("Drinks?", "numeric", "dlaplace", lo=0, hi=10, step="0.5"),
        row("Age?", "numeric", "krr", "0\n18: Adults\n65", lo=0, hi=120, step=1),
        row("Agree?", "ordinal", "oue", "Disagree = -1\nNeutral = 0\nAgree = 1"),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    multi, hours, drinks, age, agree = Survey.objects.get(slug="habits").ordered_questions()
    assert multi.mechanism() == ldp.MultiSelect(2.0, 3, at_most=2)
    assert hours.mechanism() == ldp.OneBitMean(1.0, "0", "100", "1") and hours.ordered_options() == []
    assert drinks.mechanism() == ldp.DiscreteLaplace(1.0, "0", "10", "0.5")
    assert options_of(age) == [("0 to 17", None, D(0)), ("Adults", None, D(18)), ("65 to 120", None, D(65))]
    assert options_of(agree) == [("Disagree", D(-1), None), ("Neutral", D(0), None), ("Agree", D(1), None)]


@pytest.mark.slow
def test_levels_typed_without_scores_are_scored_one_two_three(admin_client):
    assert save(admin_client, row("Often?", "ordinal", "krr", "Never\nSometimes\nOften")).status_code == 302
    agree = Survey.objects.get(slug="habits").questions.get()
    assert [o.score for o in agree.ordered_options()] == [D(1), D(2), D(3)]


@pytest.mark.parametrize("kind, mechanism, options", [
    ("single_choice", "krr", "Yes\nNo"), ("multi_select", "multiselect", "A\nB"),
    ("ordinal", "krr", "Low = 1\nHigh = 2"),
])
def test_prefer_not_to_say_is_added_as_the_last_ordinary_option_in_one_click(admin_client, kind, mechanism, options):
    assert save(admin_client, row("?", kind, mechanism, options, prefer_not_to_say="on")).status_code == 302
    q = Survey.objects.get(slug="habits").questions.get()
    assert [o.label for o in q.ordered_options()][-1] == "Prefer not to say"
    assert q.ordered_options()[-1].score is None and len(q.ordered_options()) == 3
    assert q.mechanism().k == 3  # randomized like the others


@pytest.mark.slow
def test_prefer_not_to_say_is_added_once_and_the_box_shows_it_checked(admin_client):
    assert save(admin_client, row("?", "single_choice", "krr", "Yes\nNo\nPrefer not to say",
                                  prefer_not_to_say="on")).status_code == 302
    survey = Survey.objects.get(slug="habits")
    q = survey.questions.get()
    assert [o.label for o in q.ordered_options()] == ["Yes", "No", "Prefer not to say"]
    data = current_form(admin_client, survey_url(survey), "survey_form")
    index = inline_index(data, q)
    assert data[f"questions-{index}-options_text"] == ["Yes\nNo"] and data[f"questions-{index}-prefer_not_to_say"]
    del data[f"questions-{index}-prefer_not_to_say"]  # unticked: it goes
    assert admin_client.post(survey_url(survey), data).status_code == 302
    assert [o.label for o in q.ordered_options()] == ["Yes", "No"]


def test_a_saved_histogram_and_ordinal_question_show_their_lines_as_typed(admin_client, kinds_survey):
    data = current_form(admin_client, survey_url(kinds_survey), "survey_form")
    ages, gamble = question(kinds_survey, 4), question(kinds_survey, 5)
    assert data[f"questions-{inline_index(data, ages)}-options_text"] == ["0\n18\n35\n65"]
    assert data[f"questions-{inline_index(data, gamble)}-options_text"] == ["Never = 1\nRarely = 2\nOften = 3"]
    assert data[f"questions-{inline_index(data, gamble)}-prefer_not_to_say"] == ["on"]
    assert admin_client.post(survey_url(kinds_survey), data).status_code == 302  # saved unchanged
    assert plan.of(kinds_survey).questions[3].edges == (D(0), D(18), D(35), D(65))


# --- refusals on the field at fault --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("values, field, words", [
    (row("Age?", "numeric", "krr", "0\n65\n18", lo=0, hi=120, step=1), "options_text",
     "The lower edges must increase"),  # a swapped bin edge
    (row("Age?", "numeric", "krr", "0\n17.5", lo=0, hi=120, step=1), "options_text", "on the grid"),
    (row("Age?", "numeric", "krr", "5\n18", lo=0, hi=120, step=1), "options_text", "must start at the smallest"),
    (row("Age?", "numeric", "krr", "Young\nOld", lo=0, hi=120, step=1), "options_text", "starts with its lower edge"),
    (row("Hours?", "numeric", "onebit", "0\n10", lo=0, hi=100, step=1), "options_text", "for bins, choose k-ary"),
    (row("Hours?", "numeric", "onebit", lo=0, hi=10, step=3), "step", "whole number of steps"),
    (row("Hours?", "numeric", "dlaplace", lo=5, hi=5, step=1), "hi", "must be above the smallest"),
    (row("Hours?", "numeric", "onebit", hi=10, step=1), "lo", "A numeric question needs this."),
    (row("Agree?", "ordinal", "krr", "Low = 1\nMiddle\nHigh = 3"), "options_text", "Give every level a score"),
    (row("Agree?", "ordinal", "krr", "Only"), "options_text", "at least two levels"),
    (row("Used?", "multi_select", "multiselect", "A\nB\nC", at_most=3), "at_most",
     "must be below the number of options (3)"),
    (row("Used?", "multi_select", "multiselect", "A"), "options_text", "at least two options"),
    (row("Used?", "multi_select", "krr", "A\nB"), "mechanism_name", "Multi-select questions use"),
    (row("Hours?", "numeric", "onebit", lo=0, hi=10, step=1, prefer_not_to_say="on"), "prefer_not_to_say",
     "is for single-choice, multi-select and ordinal questions"),
])
def test_a_row_that_does_not_fit_its_kind_is_refused_on_its_field_and_not_saved(admin_client, values, field, words):
    response = save(admin_client, values)
    assert response.status_code == 200
    error = field_error(response, field)
    assert error is not None and words in error, (field, error, response.content.decode()[:500])
    assert not Survey.objects.filter(slug="habits").exists()


def test_lo_hi_and_step_left_in_a_hidden_box_do_not_count_for_another_kind(admin_client):
    assert save(admin_client, row("Colour?", "single_choice", "krr", "Red\nBlue", lo=0, hi=5, step=1,
                                  at_most=1)).status_code == 302
    q = Survey.objects.get(slug="habits").questions.get()
    assert (q.lo, q.hi, q.step, q.at_most) == (None, None, None, None)


# --- the budget ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_budget_counts_the_multi_select_at_its_total_not_per_bit(admin_client):
    """Five boxes at epsilon 2 cost 2 (each box 0.4): under a budget of 2.5 it saves, and two of them do not."""
    one = row("Used?", "multi_select", "multiselect", "A\nB\nC\nD\nE", epsilon=2.0)
    assert save(admin_client, one, budget=2.5).status_code == 302
    Survey.objects.all().delete()
    response = save(admin_client, one, {**one, "text": "Again?"}, budget=2.5)
    assert response.status_code == 200 and "over the survey&#x27;s budget of 2.5" in response.content.decode()


def test_the_survey_page_shows_the_total_with_each_kinds_effective_epsilon(admin_client, kinds_survey):
    text = parse(admin_client.get(survey_url(kinds_survey)).content).text
    assert f"{plan.of(kinds_survey).epsilon_total:.4f} of 7" in text


# --- live figures -------------------------------------------------------------------------------


def test_the_figures_of_a_multi_select_say_the_per_box_and_the_total_epsilon(admin_client):
    figures = admin_client.get(f"{FIGURES}?mechanism=multiselect&epsilon=2&k=5&at_most=2").json()
    mechanism = ldp.MultiSelect(2.0, 5, at_most=2)
    assert figures["epsilon"] == mechanism.effective_epsilon and figures["differing_bits"] == 4
    assert figures["per_bit_epsilon"] == pytest.approx(mechanism.per_bit_epsilon)
    assert figures["per_bit_epsilon"] * 4 == pytest.approx(figures["epsilon"])
    assert f"each box is flipped at ε = {mechanism.per_bit_epsilon:.4f} per box" in figures["summary"]
    assert "differ in at most 4 boxes" in figures["summary"]


@pytest.mark.parametrize("epsilon, lower", [("0.1", "onebit"), ("8", "dlaplace")])
def test_the_figures_of_a_numeric_mean_show_both_variances_and_which_is_lower(admin_client, epsilon, lower):
    figures = admin_client.get(f"{FIGURES}?mechanism=onebit&epsilon={epsilon}&lo=0&hi=10&step=1").json()
    expected = ldp.means.numeric.per_report_variance(float(epsilon), "0", "10", "1")
    assert figures["variances"] == pytest.approx(expected) and figures["lower_variance"] == lower
    words = {"onebit": "the 1-bit mean is lower", "dlaplace": "discrete Laplace is lower"}[lower]
    assert words in figures["summary"] and "±0.5 (5% of the range) on the mean" in figures["summary"]
    assert figures["mean_respondents"] == ldp.mean_respondents_needed(ldp.OneBitMean(float(epsilon), "0", "10", "1"),
                                                                      0.5)


@pytest.mark.parametrize("query, field", [
    ("mechanism=onebit&epsilon=1&lo=0&hi=10", "step"),
    ("mechanism=dlaplace&epsilon=1&lo=0&hi=10&step=3", "step"),
    ("mechanism=multiselect&epsilon=1&k=3&at_most=3", "at_most"),
    ("mechanism=krr&epsilon=1&k=3&lo=0", "lo"),
    ("mechanism=krr&epsilon=1&k=3&at_most=1", "at_most"),
])
def test_the_figures_endpoint_refuses_a_bad_scale_or_limit_naming_it(admin_client, query, field):
    response = admin_client.get(f"{FIGURES}?{query}")
    assert response.status_code == 400 and response.json()["error"]["field"] == field


# --- frozen -------------------------------------------------------------------------------------


def test_once_the_survey_has_a_report_every_kinds_rows_are_read_only(admin_client, kinds_survey):
    submission.submit(kinds_survey, valid_payload(kinds_survey))
    page = parse(admin_client.get(survey_url(kinds_survey)).content)
    assert page.by_id("questions-0-options_text") is None and page.by_id("questions-0-lo") is None
    text = page.text
    assert "0 to 17, 18 to 34, 35 to 64, 65 to 120" not in text  # bins show as their edges
    assert "0, 18, 35, 65" in text and "Never = 1, Rarely = 2, Often = 3, Prefer not to say" in text


def test_a_read_only_row_shows_only_the_settings_of_its_own_kind_and_mechanism(admin_client, kinds_survey, survey):
    rows = []
    for each in (kinds_survey, survey):
        submission.submit(each, valid_payload(each))
        page = parse(admin_client.get(survey_url(each)).content)
        for index in range(each.questions.count()):
            row = page.by_id(f"questions-{index}")
            fields = [div.attrs["class"] for div in row.find_all("div") if "form-row" in div.attrs.get("class", "")]
            settings = row.find("div", **{"class": "form-row field-settings"}).find("div", **{"class": "readonly"})
            rows.append((fields, [line for line in settings.children if isinstance(line, str)]))
    shown = ["form-row field-position", "form-row field-text", "form-row field-kind", "form-row field-settings",
             "form-row field-privacy"]
    krr = "Mechanism: k-ary randomized response (single choice, ordinal levels, numeric bins)"
    assert rows == [(shown, settings) for settings in [
        ["Options: Tobacco, Alcohol, Cannabis, Prefer not to say", "At most: 2",
         "Mechanism: Multi-select bits (multi-select)", "Epsilon: 2.0"],
        ["Lo: 0", "Hi: 100", "Step: 1", "Mechanism: 1-bit mean (numeric: the mean)", "Epsilon: 1.0"],
        ["Lo: 0", "Hi: 10", "Step: 0.5", "Mechanism: Discrete Laplace (numeric: the mean)", "Epsilon: 1.0"],
        ["Options: 0, 18, 35, 65", "Lo: 0", "Hi: 120", "Step: 1", krr, "Epsilon: 1.0"],
        ["Options: Never = 1, Rarely = 2, Often = 3, Prefer not to say", krr, "Epsilon: 1.0"],
        ["Mechanism: q-randomized response (yes/no)", "Q: 0.5"],
        ["Mechanism: Epsilon bit flip (yes/no)", f"Epsilon: {math.log(3)}"],
        ["Options: Never, Sometimes, Often", krr, "Epsilon: 1.0"],
        ["Options: A, B, C, D", "Mechanism: Optimized unary encoding (single choice, ordinal levels)", "Epsilon: 1.0"],
    ]]
