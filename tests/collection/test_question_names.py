"""A question's name (its XLSForm name, its column in exports): q<order> when none is given, the next free q<n>
when another question of its survey has that one; unique per survey."""

import pytest
from django.db import IntegrityError

from surveys.collection.models import Question, Survey

pytestmark = pytest.mark.django_db


def test_a_question_added_without_a_name_is_named_by_its_order_or_the_next_free(survey):
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    Question.objects.filter(survey=survey, order=4).delete()
    Question.objects.filter(survey=survey, order=3).update(order=4)
    added = Question.objects.create(survey=survey, order=3, text="New?", mechanism_name="qrr", q="0.5")

    assert list(survey.ordered_questions().values_list("name", flat=True)) == ["q1", "q2", "q4", "q3"]
    assert added.name == "q4"


def test_two_questions_of_a_survey_cannot_share_a_name(survey):
    with pytest.raises(IntegrityError):
        Question.objects.filter(survey=survey, order=2).update(name="q1")
