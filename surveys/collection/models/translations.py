"""A survey's texts in its other languages: text only, never part of how reports are made or read.

Our own three small tables rather than django-modeltranslation or django-parler: the languages a
survey is offered in are data an admin chooses per survey, among the interface's languages, with
no schema migration per language (modeltranslation adds a column per language and field); a
missing text is a row that is absent, which the Open action names (parler silently falls back);
and the plan's one query, its memo and its version digest stay exactly as they are, because the
translations are read beside the plan, never into it. A translation can be added or corrected
after the first report: it changes no mechanism and no version.
"""

from __future__ import annotations

from django.db import models

from .survey import Option, Question, Survey, interface_languages


class SurveyTranslation(models.Model):
    """One offered language of a survey (its row is the offer) with the survey's own texts in it."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(max_length=10, choices=interface_languages)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    consent = models.TextField(blank=True)

    class Meta:
        ordering = ["survey", "language"]
        constraints = [models.UniqueConstraint(fields=["survey", "language"], name="survey_translation_unique")]

    def __str__(self) -> str:
        return f"{self.survey.slug} [{self.language}]"


class QuestionTranslation(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(max_length=10, choices=interface_languages)
    text = models.CharField(max_length=500)
    hint = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["question", "language"]
        constraints = [models.UniqueConstraint(fields=["question", "language"], name="question_translation_unique")]


class OptionTranslation(models.Model):
    option = models.ForeignKey(Option, on_delete=models.CASCADE, related_name="translations")
    language = models.CharField(max_length=10, choices=interface_languages)
    label = models.CharField(max_length=200)

    class Meta:
        ordering = ["option", "language"]
        constraints = [models.UniqueConstraint(fields=["option", "language"], name="option_translation_unique")]
