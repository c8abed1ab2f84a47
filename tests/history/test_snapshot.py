"""A survey's configuration as comparable text, and the field-level changes between two."""

from surveys.collection.models import Option, Survey
from surveys.history import snapshot
from tests.collection.helpers import question


def test_a_snapshot_holds_the_survey_its_researchers_its_questions_and_their_options(survey):
    taken = snapshot.current(survey.pk)
    assert taken["survey"] == {
        "title": "Health", "slug": "health", "description": "", "language": "English", "consent": "",
        "status": "Open", "opens_at": "", "closes_at": "", "access": "Anyone with the link", "epsilon_budget": "6.0",
        "retention_days": "365", "researchers": "owner"}
    drugs = taken["questions"][str(question(survey, 3).pk)]
    assert drugs == {"order": "3", "text": "Drugs?", "kind": "Single choice",
                     "mechanism_name": "k-ary randomized response (single choice, ordinal levels, numeric bins)",
                     "q": "", "epsilon": "1.0", "options": "Never | Sometimes | Often"}


def test_an_unknown_survey_has_no_snapshot(db):
    assert snapshot.current(10**9) is None


def test_the_changes_name_each_field_with_its_value_before_and_after(survey):
    before = snapshot.current(survey.pk)
    Survey.objects.filter(pk=survey.pk).update(epsilon_budget=8.0)
    drugs = question(survey, 3)
    type(drugs).objects.filter(pk=drugs.pk).update(epsilon=2.0)
    Option.objects.filter(question=drugs, label="Often").update(label="Daily")
    assert snapshot.changes(before, snapshot.current(survey.pk)) == [
        {"field": "epsilon budget", "before": "6.0", "after": "8.0"},
        {"field": f"Question {drugs.pk} “Drugs?”: epsilon", "before": "1.0", "after": "2.0"},
        {"field": f"Question {drugs.pk} “Drugs?”: options", "before": "Never | Sometimes | Often",
         "after": "Never | Sometimes | Daily"},
    ]


def test_nothing_changed_is_no_change(survey):
    assert snapshot.changes(snapshot.current(survey.pk), snapshot.current(survey.pk)) == []


def test_a_new_survey_lists_every_value_it_was_made_with(survey):
    found = snapshot.changes(None, snapshot.current(survey.pk))
    assert {"field": "title", "before": None, "after": "Health"} in found
    assert all(row["before"] is None for row in found)


def test_a_questions_name_is_a_change_of_its_own(survey):
    """Its column's name in every export: named, renamed and cleared, each recorded."""
    before = snapshot.current(survey.pk)
    drugs = question(survey, 3)
    type(drugs).objects.filter(pk=drugs.pk).update(name="drugs")
    named = snapshot.current(survey.pk)
    type(drugs).objects.filter(pk=drugs.pk).update(name="")
    where = f"Question {drugs.pk} “Drugs?”: name"
    assert snapshot.changes(before, named) == [{"field": where, "before": None, "after": "drugs"}]
    assert snapshot.changes(named, snapshot.current(survey.pk)) == [{"field": where, "before": "drugs", "after": None}]
