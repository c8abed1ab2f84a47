"""The survey admin: budget and mechanism validation, privacy figures, actions, frozen surveys.

Every test posts the real change form: the data is read from the rendered page (management
forms included) and only the fields under test are changed.
"""

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from django.utils.html import escape

import ldp
from surveys.collection import plan, submission
from surveys.collection.models import MAX_OPTIONS, Option, Question, Survey
from tests.collection.helpers import question
from tests.collection.pages import form_data, parse
from tests.factories import INEXACT_BITFLIP_EPSILONS, valid_payload

SURVEYS = "/admin/collection/survey/"
QUESTIONS = "/admin/collection/question/"
MISMATCH = ("Yes/no questions use q-randomized response or the epsilon bit flip; "
            "single-choice questions use k-ary randomized response, a unary encoding, or no "
            "randomization (direct).")


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def survey_url(survey):
    return f"{SURVEYS}{survey.pk}/change/"


def question_url(q):
    return f"{QUESTIONS}{q.pk}/change/"


def current_form(client, url, form_id):
    response = client.get(url)
    assert response.status_code == 200
    return form_data(response.content, form_id)


def add_inline_forms(data, prefix, *rows):
    """Append new inline forms the way the admin's "Add another" button does."""
    total = int(data[f"{prefix}-TOTAL_FORMS"][0])
    for index, row in enumerate(rows, start=total):
        for name, value in row.items():
            data[f"{prefix}-{index}-{name}"] = ["" if value is None else str(value)]
    data[f"{prefix}-TOTAL_FORMS"] = [str(total + len(rows))]
    return data


def inline_index(data, target):
    """The index of question `target`'s form in the survey page's inline."""
    for name, values in data.items():
        if name.startswith("questions-") and name.endswith("-id") and values == [str(target.pk)]:
            return int(name.split("-")[1])
    raise AssertionError(f"question {target.pk} is not on the page")


def set_question(data, target, **fields):
    index = inline_index(data, target)
    for name, value in fields.items():
        data[f"questions-{index}-{name}"] = ["" if value is None else str(value)]
    return data


def messages_on(response):
    """The texts of the admin's message list on a page."""
    lists = parse(response.content).find_all("ul", **{"class": "messagelist"})
    return [item.text for messages in lists for item in messages.find_all("li")]


def questions_state(survey):
    return sorted(Question.objects.filter(survey=survey).values_list(
        "pk", "order", "text", "kind", "mechanism_name", "q", "epsilon"))


def options_state(survey):
    return sorted(Option.objects.filter(question__survey=survey).values_list("pk", "question_id", "order", "label"))


def new_survey_form(client, **fields):
    data = current_form(client, f"{SURVEYS}add/", "survey_form")
    data.update({name: [str(value)] for name, value in {
        "title": "Habits", "slug": "habits", "epsilon_budget": 3, **fields}.items()})
    return data


def yes_no(order, mechanism="bitflip", **parameter):
    return {"order": order, "text": f"Question {order}?", "kind": "yes_no", "mechanism_name": mechanism,
            "q": parameter.get("q"), "epsilon": parameter.get("epsilon")}


# --- access -----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", [None, "owner", "other_researcher"])
def test_only_staff_reach_the_survey_admin(client, survey, request, who):
    if who:
        client.force_login(request.getfixturevalue(who))
    for url in (SURVEYS, survey_url(survey), question_url(question(survey, 1))):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


# --- budget and mechanism validation on the survey page ---------------------------------------


def test_a_valid_new_survey_saves_with_its_questions(admin_client):
    data = add_inline_forms(new_survey_form(admin_client), "questions",
                            yes_no(1, "qrr", q="0.5"), yes_no(2, "bitflip", epsilon=1.0))
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 302, response.content
    survey = Survey.objects.get(slug="habits")
    assert survey.status == Survey.Status.DRAFT
    assert [(q.mechanism_name, q.q, q.epsilon) for q in survey.ordered_questions()] == [
        ("qrr", Decimal("0.5"), None), ("bitflip", None, 1.0)]
    assert plan.of(survey).epsilon_total <= survey.epsilon_budget


@pytest.mark.slow
def test_a_new_survey_over_its_budget_is_refused_and_nothing_is_saved(admin_client):
    data = add_inline_forms(new_survey_form(admin_client, epsilon_budget=3), "questions",
                            yes_no(1, epsilon=2.0), yes_no(2, epsilon=2.0))
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 200
    total = 2 * ldp.BitFlip(2.0).effective_epsilon
    message = (f"These questions cost ε = {total:.4f} per respondent, over the survey's budget of 3. "
               "Lower some epsilons (or q), or raise the budget.")
    assert escape(message) in response.content.decode()
    assert not Survey.objects.filter(slug="habits").exists()
    assert not Question.objects.exists()


def test_a_new_survey_exactly_at_its_budget_saves(admin_client):
    data = add_inline_forms(new_survey_form(admin_client, epsilon_budget=2), "questions",
                            yes_no(1, epsilon=1.0), yes_no(2, epsilon=1.0))
    assert admin_client.post(f"{SURVEYS}add/", data).status_code == 302
    assert Survey.objects.get(slug="habits").questions.count() == 2


@pytest.mark.parametrize("row", [
    {"kind": "single_choice", "mechanism_name": "bitflip", "q": None, "epsilon": 1.0},
    {"kind": "yes_no", "mechanism_name": "krr", "q": None, "epsilon": 1.0},
    {"kind": "yes_no", "mechanism_name": "oue", "q": None, "epsilon": 1.0},
], ids=["bitflip-on-single-choice", "krr-on-yes-no", "oue-on-yes-no"])
def test_a_mechanism_that_does_not_fit_its_question_is_refused(admin_client, row):
    data = add_inline_forms(new_survey_form(admin_client), "questions", {"order": 1, "text": "?", **row})
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 200
    assert escape(MISMATCH) in response.content.decode()
    assert not Survey.objects.filter(slug="habits").exists() and not Question.objects.exists()


def test_a_qrr_question_without_q_is_refused_with_the_reason(admin_client):
    data = add_inline_forms(new_survey_form(admin_client), "questions", yes_no(1, "qrr", epsilon=1.0))
    response = admin_client.post(f"{SURVEYS}add/", data)
    assert response.status_code == 200
    assert "q-randomized response needs q." in response.content.decode()
    assert not Survey.objects.filter(slug="habits").exists()


@pytest.mark.slow
def test_editing_a_question_over_the_budget_on_the_survey_page_is_refused(admin_client, survey):
    before = questions_state(survey)
    data = set_question(current_form(admin_client, survey_url(survey), "survey_form"), question(survey, 2),
                        epsilon=3.0)  # 1.0986 + 3 + 1 + 1 > 6
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 200
    assert "over the survey" in response.content.decode()
    assert questions_state(survey) == before


@pytest.mark.slow
def test_lowering_the_budget_below_the_questions_cost_is_refused(admin_client, survey):
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data["epsilon_budget"] = ["4"]  # the questions cost about 4.2
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 200
    assert "over the survey" in response.content.decode()
    assert Survey.objects.get(pk=survey.pk).epsilon_budget == 6.0


def test_a_valid_edit_on_the_survey_page_saves(admin_client, survey):
    data = set_question(current_form(admin_client, survey_url(survey), "survey_form"), question(survey, 2),
                        epsilon=1.5)
    data = set_question(data, question(survey, 1), q="0.25")
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 302, response.content
    assert question(survey, 2).epsilon == 1.5 and question(survey, 1).q == Decimal("0.25")


@pytest.mark.slow
def test_deleting_a_question_frees_its_budget_for_another(admin_client, survey):
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data[f"questions-{inline_index(data, question(survey, 2))}-DELETE"] = ["on"]
    data = add_inline_forms(data, "questions", {**yes_no(5, epsilon=2.5), "survey": survey.pk})
    response = admin_client.post(survey_url(survey), data)  # 4.2 - 1.1 + 2.5 = 5.6 <= 6
    assert response.status_code == 302, response.content
    # The rows are renumbered by position: the new question comes last.
    assert list(survey.questions.order_by("order").values_list("order", "text")) == [
        (1, "Cheated?"), (2, "Drugs?"), (3, "Party?"), (4, "Question 5?")]


@pytest.mark.slow
def test_a_single_choice_question_can_be_added_on_the_survey_page(admin_client, survey):
    data = add_inline_forms(current_form(admin_client, survey_url(survey), "survey_form"), "questions",
                            {"order": 5, "text": "Which?", "kind": "single_choice", "mechanism_name": "krr",
                             "epsilon": 0.5, "survey": survey.pk, "options_text": "Red\nBlue"})
    response = admin_client.post(survey_url(survey), data)
    assert response.status_code == 302
    assert survey.questions.filter(order=5, mechanism_name="krr").exists()


# --- the question page --------------------------------------------------------------------------


def test_a_valid_edit_on_the_question_page_saves(admin_client, survey):
    q = question(survey, 2)
    data = current_form(admin_client, question_url(q), "question_form")
    data["epsilon"] = ["1.5"]
    assert admin_client.post(question_url(q), data).status_code == 302
    assert question(survey, 2).epsilon == 1.5


@pytest.mark.slow
def test_the_question_page_refuses_an_edit_that_puts_the_survey_over_budget(admin_client, survey):
    q = question(survey, 2)
    data = current_form(admin_client, question_url(q), "question_form")
    data["epsilon"] = ["5"]  # 1.0986 + 5 + 1 + 1 > 6
    response = admin_client.post(question_url(q), data)
    assert question(survey, 2).epsilon == pytest.approx(math.log(3))
    assert response.status_code == 200 and "Over the survey" in response.content.decode()


def test_a_yes_no_question_can_be_added_on_the_question_page(admin_client, survey):
    data = current_form(admin_client, f"{QUESTIONS}add/", "question_form")
    data.update({"survey": [str(survey.pk)], "order": ["5"], "text": ["New?"], "kind": ["yes_no"],
                 "mechanism_name": ["bitflip"], "epsilon": ["0.5"], "q": [""]})
    response = admin_client.post(f"{QUESTIONS}add/", data)
    assert response.status_code == 302
    assert survey.questions.filter(order=5).exists()


@pytest.mark.slow
def test_the_question_page_warns_when_a_single_choice_question_has_too_few_options(admin_client, survey):
    q = question(survey, 3)
    data = current_form(admin_client, question_url(q), "question_form")
    for index in (1, 2):
        data[f"options-{index}-DELETE"] = ["on"]
    response = admin_client.post(question_url(q), data, follow=True)
    assert list(q.options.values_list("label", flat=True)) == ["Never"]
    assert any("needs at least two options" in message for message in messages_on(response))


# --- what the admin is told -------------------------------------------------------------------


def _what_it_means(mechanism):
    """The effective epsilon (and for yes/no the q of q-RR with the same channel, tanh(eps / 2): it
    means nothing for k options), the odds e^eps and n = z^2 / (4 m^2 (p - q_other)^2) at 95%, m = 0.05."""
    eps = mechanism.effective_epsilon
    q = f" (q = {math.tanh(eps / 2):.4f})" if mechanism.name in ("qrr", "bitflip") else ""
    if mechanism.name == "qrr":  # q as typed, exactly, and p = (1 + q)/2 as the sampler's fraction
        q = f" (q = {mechanism.to_dict()['q']}, p = {Fraction(mechanism.keep, mechanism.modulus)})"
    z = 1.959963984540054
    needed = math.ceil(z * z / (4 * 0.05**2 * (mechanism.p - mechanism.q_other) ** 2))
    up = ldp.planning.rounding.loss_of(mechanism.sampler())  # epsilon and the odds rounded up, never to nearest
    return (f"ε = {up.epsilon_up(4)}{q}; a report shifts the odds at most "
            f"{up.odds_up(2)}:1; {needed:,} respondents for ±5 points at 95%")


EXPECTED_MECHANISMS = {1: ldp.QRandomizedResponse("0.5"), 2: ldp.BitFlip(math.log(3)), 3: ldp.KaryRR(1.0, 3),
                       4: ldp.OptimizedUnary(1.0, 4)}


def test_the_survey_page_explains_every_question_and_the_total_against_the_budget(admin_client, survey):
    text = parse(admin_client.get(survey_url(survey)).content).text
    for mechanism in EXPECTED_MECHANISMS.values():
        assert _what_it_means(mechanism) in text
    total = math.fsum(m.effective_epsilon for m in EXPECTED_MECHANISMS.values())
    assert f"{math.ceil(total * 10000) / 10000:.4f} of 6" in text  # rounded up: 4.19725 is said 4.1973


@pytest.mark.parametrize("order", EXPECTED_MECHANISMS)
def test_the_question_page_explains_its_mechanism(admin_client, survey, order):
    text = parse(admin_client.get(question_url(question(survey, order))).content).text
    assert _what_it_means(EXPECTED_MECHANISMS[order]) in text


def test_the_survey_list_shows_the_privacy_cost_and_response_count(admin_client, responded):
    text = parse(admin_client.get(SURVEYS).content).text
    total = math.fsum(m.effective_epsilon for m in EXPECTED_MECHANISMS.values())
    assert f"{math.ceil(total * 10000) / 10000:.4f} of 6" in text  # rounded up: 4.19725 is said 4.1973
    row = [tr for tr in parse(admin_client.get(SURVEYS).content).find_all("tr") if "health" in tr.text][0]
    assert "1" in [td.text for td in row.find_all("td")]


# --- open and close actions -------------------------------------------------------------------


def _act(client, action, *surveys):
    return client.post(SURVEYS, {"action": action, "_selected_action": [s.pk for s in surveys]}, follow=True)


def test_the_open_action_opens_a_valid_draft(admin_client, survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    response = _act(admin_client, "open_surveys", survey)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN
    assert "Health: opened. Respondents answer at http://testserver/s/health/" in messages_on(response)


def test_the_open_action_refuses_a_single_choice_question_with_one_option(admin_client, survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    question(survey, 3).options.filter(order__gt=0).delete()
    response = _act(admin_client, "open_surveys", survey)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT
    assert f"Health: cannot open: question 3 needs 2 to {MAX_OPTIONS} options, has 1" in messages_on(response)


def test_the_open_action_handles_each_survey_on_its_own(admin_client, survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    empty = Survey.objects.create(slug="empty", title="Empty")
    response = _act(admin_client, "open_surveys", survey, empty)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN
    assert Survey.objects.get(pk=empty.pk).status == Survey.Status.DRAFT
    assert "Empty: cannot open: it has no questions" in messages_on(response)


def test_a_new_survey_is_its_creators_to_read_unless_they_choose_otherwise(admin_client, superuser):
    form = new_survey_form(admin_client)
    assert form["researchers"] == [str(superuser.pk)]
    response = admin_client.post(f"{SURVEYS}add/", add_inline_forms(form, "questions", yes_no(1, "qrr", q="0.5")))
    assert response.status_code == 302, response.content
    assert list(Survey.objects.get(slug="habits").researchers.all()) == [superuser]


@pytest.mark.parametrize("assigned", [True, False])
def test_opening_a_survey_nobody_is_assigned_to_warns_by_action_and_button(admin_client, survey, owner, assigned):
    if not assigned:
        survey.researchers.clear()
    warning = ("Health: no researcher is assigned, so only superusers see its results. Choose its researchers "
               "under Results.")
    for open_it in (lambda: _act(admin_client, "open_surveys", survey),
                    lambda: admin_client.post(f"{SURVEYS}{survey.pk}/open/", follow=True)):
        Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
        shown = messages_on(open_it())
        assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN
        assert (warning in shown) is not assigned, shown


def test_the_close_action_closes(admin_client, survey):
    response = _act(admin_client, "close_surveys", survey)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.CLOSED
    assert "Health: closed." in messages_on(response)


# --- frozen after the first response ----------------------------------------------------------


def test_after_a_response_the_survey_page_shows_questions_read_only(admin_client, responded):
    data = current_form(admin_client, survey_url(responded), "survey_form")
    editable = ("order", "position", "text", "kind", "options_text", "mechanism_name", "q", "epsilon", "DELETE")
    assert not [name for name in data if name.startswith("questions-") and name.split("-")[-1] in editable]
    text = parse(admin_client.get(survey_url(responded)).content).text
    assert _what_it_means(EXPECTED_MECHANISMS[1]) in text  # still explained


def test_after_a_response_posting_the_survey_page_cannot_change_add_or_delete_questions(admin_client, survey):
    data = current_form(admin_client, survey_url(survey), "survey_form")  # loaded while still editable
    submission.submit(survey, valid_payload(survey))
    before, options_before = questions_state(survey), options_state(survey)

    set_question(data, question(survey, 1), q="0.9", text="Changed?")
    set_question(data, question(survey, 2), epsilon=0.2)
    set_question(data, question(survey, 4), mechanism_name="sue")
    data[f"questions-{inline_index(data, question(survey, 3))}-DELETE"] = ["on"]
    add_inline_forms(data, "questions", {**yes_no(5, epsilon=0.5), "survey": survey.pk})
    data["title"] = ["Health, renamed"]
    response = admin_client.post(survey_url(survey), data)

    assert response.status_code == 302  # the survey's own fields save; its questions are ignored
    assert Survey.objects.get(pk=survey.pk).title == "Health, renamed"
    assert questions_state(survey) == before
    assert options_state(survey) == options_before
    assert plan.of(survey).version == survey.responses.get().mechanism_version


def test_after_a_response_the_question_page_is_read_only_and_refuses_posts(admin_client, survey):
    q = question(survey, 3)
    data = current_form(admin_client, question_url(q), "question_form")  # loaded while still editable
    submission.submit(survey, valid_payload(survey))
    before, options_before = questions_state(survey), options_state(survey)

    page = admin_client.get(question_url(q))
    assert page.status_code == 200
    assert "epsilon" not in form_data(page.content, "question_form")
    data.update({"epsilon": ["0.3"], "text": ["Changed?"], "options-0-label": ["Not ever"], "options-1-DELETE": ["on"]})
    add_inline_forms(data, "options", {"order": 3, "label": "Daily", "question": q.pk})
    response = admin_client.post(question_url(q), data)

    assert response.status_code == 403
    assert questions_state(survey) == before
    assert options_state(survey) == options_before


def test_after_a_response_a_question_cannot_be_deleted_in_the_admin(admin_client, responded):
    q = question(responded, 1)
    response = admin_client.post(f"{QUESTIONS}{q.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert Question.objects.filter(pk=q.pk).exists()


# --- opening through the status field -----------------------------------------------------------


@pytest.mark.slow
def test_the_status_field_cannot_open_a_survey_around_the_checks(admin_client, survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    question(survey, 3).options.filter(order__gt=0).delete()
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data["status"] = [Survey.Status.OPEN]
    admin_client.post(survey_url(survey), data)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


def _shown_q(mechanism, epsilon):
    return f"q = {math.tanh(epsilon / 2):.4f}"


@pytest.mark.slow
def test_the_admin_shows_the_q_of_the_effective_epsilon(admin_client, every_mechanism_survey):
    # Question 4's configured and effective q round differently at the admin's 4 decimals.
    bitflip = question(every_mechanism_survey, 4)
    mechanism = ldp.BitFlip(INEXACT_BITFLIP_EPSILONS[4])
    right, wrong = _shown_q(mechanism, mechanism.effective_epsilon), _shown_q(mechanism, mechanism.epsilon)
    assert right != wrong
    for url in (survey_url(every_mechanism_survey), question_url(bitflip)):
        text = parse(admin_client.get(url).content).text
        assert _what_it_means(mechanism) in text
        assert right in text and wrong not in text
