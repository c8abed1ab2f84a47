"""Every configuration change made in the admin is recorded with who, when and each field before
and after: a survey's own fields and budget, its researchers, its questions and options (on the
survey page and on the question page), added and deleted questions, surveys made and deleted,
and status changes by the Open / Close buttons, the actions and a purge."""


import pytest

from surveys.collection.models import Survey
from surveys.history.models import ConfigurationChange
from tests.collection.helpers import question
from tests.collection.test_admin import (
    QUESTIONS,
    SURVEYS,
    add_inline_forms,
    current_form,
    inline_index,
    new_survey_form,
    question_url,
    set_question,
    survey_url,
    yes_no,
)


def recorded(survey_id):
    """(who, action, [(field, before, after)]) of each recorded change, oldest first."""
    return [(change.who, change.action, [(row["field"], row["before"], row["after"]) for row in change.changes])
            for change in ConfigurationChange.objects.filter(survey_id=survey_id).order_by("pk")]


@pytest.mark.slow
def test_the_budget_and_a_questions_epsilon_changed_on_the_survey_page(admin_client, survey):
    data = set_question(current_form(admin_client, survey_url(survey), "survey_form"), question(survey, 3),
                        epsilon=0.5)
    data["epsilon_budget"] = ["5"]
    assert admin_client.post(survey_url(survey), data).status_code == 302
    drugs = question(survey, 3).pk
    assert recorded(survey.pk) == [("super", "changed", [
        ("epsilon budget", "6.0", "5.0"),
        (f"Question {drugs} “Drugs?”: epsilon", "1.0", "0.5"),
    ])]


def test_researchers_added_and_removed(admin_client, survey, other_researcher):
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data["researchers"] = [str(other_researcher.pk)]
    admin_client.post(survey_url(survey), data)
    assert recorded(survey.pk) == [("super", "changed", [("researchers", "owner", "other")])]


def test_questions_reordered_added_and_deleted_on_the_survey_page(admin_client, survey):
    cheated, drove = question(survey, 1), question(survey, 2)
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data[f"questions-{inline_index(data, cheated)}-position"] = ["2"]
    data[f"questions-{inline_index(data, drove)}-position"] = ["1"]
    data[f"questions-{inline_index(data, question(survey, 4))}-DELETE"] = ["on"]
    data = add_inline_forms(data, "questions", {**yes_no(5, epsilon=0.5), "survey": survey.pk})
    assert admin_client.post(survey_url(survey), data).status_code == 302, "saved"
    (who, action, rows), = recorded(survey.pk)
    new = survey.questions.get(text="Question 5?").pk
    assert (who, action) == ("super", "changed")
    assert (f"Question {cheated.pk} “Cheated?”: order", "1", "2") in rows
    assert (f"Question {drove.pk} “Drove drunk?”: order", "2", "1") in rows
    assert any(field.endswith("“Party?”: options") and after is None for field, _, after in rows)
    assert (f"Question {new} “Question 5?”: epsilon", None, "0.5") in rows


def test_options_relabelled_on_the_question_page(admin_client, survey):
    drugs = question(survey, 3)
    data = current_form(admin_client, question_url(drugs), "question_form")
    data["options-2-label"] = ["Daily"]
    assert admin_client.post(question_url(drugs), data).status_code == 302
    assert recorded(survey.pk) == [("super", "changed", [
        (f"Question {drugs.pk} “Drugs?”: options", "Never | Sometimes | Often", "Never | Sometimes | Daily")])]


def test_a_question_deleted_on_its_own_page(admin_client, survey):
    party = question(survey, 4)
    admin_client.post(f"{QUESTIONS}{party.pk}/delete/", {"post": "yes"})
    (who, action, rows), = recorded(survey.pk)
    assert (f"Question {party.pk} “Party?”: text", "Party?", None) in rows


def test_a_survey_made_and_deleted(admin_client):
    data = add_inline_forms(new_survey_form(admin_client), "questions", yes_no(1, epsilon=1.0))
    assert admin_client.post(f"{SURVEYS}add/", data).status_code == 302
    made = Survey.objects.get(slug="habits")
    admin_client.post(f"{SURVEYS}{made.pk}/delete/", {"post": "yes"})
    (_, created, made_rows), (_, deleted, gone_rows) = recorded(made.pk)
    assert (created, deleted) == ("created", "deleted")
    assert ("epsilon budget", None, "3.0") in made_rows and ("epsilon budget", "3.0", None) in gone_rows


def test_the_open_and_close_buttons(admin_client, survey):
    admin_client.post(f"{SURVEYS}{survey.pk}/close/")
    admin_client.post(f"{SURVEYS}{survey.pk}/open/")
    assert recorded(survey.pk) == [("super", "changed", [("status", "Open", "Closed")]),
                                   ("super", "changed", [("status", "Closed", "Open")])]


def test_the_open_and_close_actions_and_a_purge(admin_client, survey):
    for action in ("close_surveys", "open_surveys"):
        admin_client.post(SURVEYS, {"action": action, "_selected_action": [survey.pk], "index": "0"})
    admin_client.post(SURVEYS, {"action": "purge_responses", "_selected_action": [survey.pk], "index": "0",
                                "post": "yes"})
    assert [rows for _, _, rows in recorded(survey.pk)] == [
        [("status", "Open", "Closed")], [("status", "Closed", "Open")], [("status", "Open", "Closed")]]


@pytest.mark.slow
def test_a_refused_change_records_nothing(admin_client, survey):
    data = current_form(admin_client, survey_url(survey), "survey_form")
    data["epsilon_budget"] = ["4"]  # below the questions' cost: refused
    assert admin_client.post(survey_url(survey), data).status_code == 200
    admin_client.post(SURVEYS, {"action": "open_surveys", "_selected_action": [survey.pk], "index": "0"})
    assert recorded(survey.pk) == []


def test_saving_without_a_change_records_nothing(admin_client, survey):
    admin_client.post(survey_url(survey), current_form(admin_client, survey_url(survey), "survey_form"))
    assert recorded(survey.pk) == []
