"""A number asked directly (age in years) needs no bins: respondents never see them. The admin saves one with an empty
bins box and warns of nothing, the survey opens, and an offered language need not translate bins it does have (a
histogram's bins, which respondents answer with, still must be). Without bins its figures are its mean; break-downs
and cross-tabs leave it out, and its codebook entry has no "bins"."""

import json

import pytest
from django.contrib.messages import get_messages
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.collection import builder, lifecycle, plan
from surveys.collection.builder import QuestionSpec, TranslationSpec
from surveys.collection.models import OptionTranslation, Survey
from tests.aggregation.support import add_responses
from tests.collection.test_admin import QUESTIONS, current_form, messages_on
from tests.collection.test_admin_survey_page import field_error, row, save


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def age(bins=""):
    return row("Your age in years?", "numeric", "direct_number", bins, epsilon=None, lo=18, hi=99, step=1)


def draft(questions, translation):
    """A draft offered in Spanish, every text translated but the bins' labels."""
    survey = builder.create_survey("ages", "Ages", questions, status=Survey.Status.DRAFT, epsilon_budget=3.0,
                                   retention_days=30)
    builder.translate(survey, translation)
    OptionTranslation.objects.filter(option__question__survey=survey).delete()
    return survey


def test_the_admin_saves_it_without_bins_and_warns_of_nothing(admin_client):
    response = save(admin_client, row("Cheated?", "yes_no", "qrr", epsilon=None, q="0.5"), age())
    assert response.status_code == 302, field_error(response, "options_text")
    saved = Survey.objects.get(slug="habits")
    assert [str(m.message) for m in get_messages(response.wsgi_request)] == [
        f'The survey “<a href="/admin/collection/survey/{saved.pk}/change/">Habits</a>” was added successfully.']
    assert saved.questions.get(order=2).ordered_options() == []
    saved.retention_days = 30  # required to open; not what this test is about
    lifecycle.open_survey(saved)
    assert saved.status == Survey.Status.OPEN


def test_one_bin_alone_is_still_refused(admin_client):
    response = save(admin_client, age("18"))
    assert response.status_code == 200
    assert "at least two bins" in field_error(response, "options_text")


SPANISH = TranslationSpec("es", "Edades", ["¿Su edad en años?", "¿Su edad?"], {1: ["18 a 34", "35 a 99"],
                                                                            2: ["18 a 34", "35 a 99"]})


def test_an_offered_language_need_not_translate_a_direct_numbers_bins_but_must_a_histograms(db):
    survey = draft([
        QuestionSpec("Your age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 99"], edges=["18", "35"]),
        QuestionSpec("Your age?", "krr", epsilon=1.0, kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 99"], edges=["18", "35"]),
    ], SPANISH)
    with pytest.raises(ValidationError) as refused:
        lifecycle.open_survey(survey)
    assert refused.value.messages == ["cannot open: no Spanish (es) text for question 2 option 1 “18 to 34”, "
                                      "question 2 option 2 “35 to 99”"]


def test_a_survey_whose_only_untranslated_words_are_a_direct_numbers_bins_opens(db):
    survey = draft([
        QuestionSpec("Your age in years?", "direct_number", kind="numeric", scale=("18", "99", "1"),
                     options=["18 to 34", "35 to 99"], edges=["18", "35"]),
    ], TranslationSpec("es", "Edades", ["¿Su edad en años?"], {1: ["18 a 34", "35 a 99"]}))
    lifecycle.open_survey(survey)
    assert survey.status == Survey.Status.OPEN


@pytest.fixture
def binless(db, owner):
    survey = builder.create_survey("binless", "Binless", [
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("Your age in years?", "direct_number", kind="numeric", scale=("18", "99", "1")),
    ], status=Survey.Status.OPEN, epsilon_budget=2.0)
    survey.researchers.add(owner)
    add_responses(survey, 40, seed=2)
    return survey


def test_its_figures_are_its_mean_and_break_downs_leave_it_out(client, owner, binless):
    age = plan.of(binless).questions[1]
    assert (age.options, age.edges, age.relatable) == ((), (), False)
    client.force_login(owner)
    body = client.get(reverse("aggregation:api-estimates", args=[binless.slug]) + "?interval=wilson").json()
    assert body["questions"][1]["options"] == [] and body["questions"][1]["mean"]["n"] == 40
    html = client.get(reverse("aggregation:dashboard", args=[binless.slug]) + "?pilot=on").content.decode()
    assert "Exact mean of the answers (not randomized: sent as given)" in html
    assert f'<option value="{age.id}"' not in html  # no menu offers it
    book = json.loads(client.get(reverse("aggregation:export-codebook", args=[binless.slug])).content)
    entry = book["questions"][1]
    assert ("bins" not in entry, entry["options"], entry["scale"]) == (True, [], {"lo": "18", "hi": "99", "step": "1"})


def test_the_question_page_adds_it_without_bins_and_warns_of_nothing(admin_client, db):
    survey = builder.create_survey("page", "Page", [QuestionSpec("Cheated?", "qrr", q="0.5")])
    data = current_form(admin_client, f"{QUESTIONS}add/", "question_form")
    data.update({"survey": [str(survey.pk)], "order": ["2"], "text": ["Your age in years?"], "kind": ["numeric"],
                 "mechanism_name": ["direct_number"], "epsilon": [""], "q": [""], "lo": ["18"], "hi": ["99"],
                 "step": ["1"]})
    response = admin_client.post(f"{QUESTIONS}add/", data, follow=True)
    added = survey.questions.get(order=2)
    assert messages_on(response) == [f"The question “{added}” was added successfully."]
