"""The forms behind the survey page's questions: options typed with the question, order by row
position, and the survey's budget checked with the number of options typed."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from django import forms
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import ldp

from .. import kinds, lifecycle, scales, skip_logic, variable_names
from ..models import Option, Question, build_mechanism
from . import option_lines
from .option_lines import Row

NEW_Q = Fraction(1, 2)
NEW_EPSILON = 1.0
SHAPE_FIELDS = ("lo", "hi", "step", "at_most")  # each kind's own: numeric (lo, hi, step), multi-select (at_most)


class QuestionInlineForm(forms.ModelForm):
    """A question on the survey page, its options typed with it (one per line).

    `position` replaces the order field: the formset numbers the rows 1, 2, 3... by it (ties
    and blanks by row), so two rows never clash on an order."""

    position = forms.IntegerField(
        label=gettext_lazy("Order"), required=False, min_value=1,
        widget=forms.NumberInput(attrs={"class": "question-position"}),
        help_text=gettext_lazy("Questions are numbered by position; use the arrows to move a question."))
    options_text = forms.CharField(
        label=gettext_lazy("Options (one per line)"), required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 40, "class": "question-options"}),
        help_text=gettext_lazy(
            "At least two, in the order respondents see them. Single choice and multi-select: one label per "
            "line. Ordinal: one level per line, with its score (“Agree = 4”) or with none (then 1, 2, 3…). "
            "Numeric with bins: one bin per line, its lower edge, optionally with a label (“18” or “18: Adults”); "
            "the first starts at lo."))
    prefer_not_to_say = forms.BooleanField(
        label=gettext_lazy("Add “Prefer not to say” as the last option"), required=False,
        help_text=gettext_lazy("An ordinary option, randomized like the others (skipping a question would itself "
                               "be a signal). Ordinal questions leave it out of the mean score."))
    exclusive_options = forms.CharField(
        label=gettext_lazy("Exclusive options (one per line)"), required=False,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 40, "class": "question-exclusive"}),
        help_text=gettext_lazy(
            "Multi-select only: options ticked alone, such as “None of these”, named as typed above. On the "
            "respondent's page ticking one unticks the others, and ticking another unticks it, before anything "
            "is randomized. It changes neither the mechanism nor its epsilon."))

    class Meta:
        model = Question
        fields = ("text", "name", "kind", "mechanism_name", "q", "epsilon", "lo", "hi", "step", "at_most", "relevant")
        widgets = {"text": forms.Textarea(attrs={"rows": 2, "cols": 60})}  # a long question shows whole

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.option_rows: list[Row] = []
        self.planned: ldp.Mechanism | None = None  # the mechanism with the options typed
        if "q" not in self.fields:
            return  # a frozen survey's rows: read-only, with only the fields that apply (QuestionInline)
        if self.instance.pk is None:
            # A new question starts from the textbook settings: q = 0.5 (epsilon = ln 3) for q-RR,
            # epsilon = 1 for the others; the admin changes them only to deviate.
            self.fields["q"].initial = NEW_Q
            self.fields["epsilon"].initial = NEW_EPSILON
        else:
            self.fields["position"].initial = self.instance.order
            text, prefer_not = option_lines.written(self.instance)
            self.fields["options_text"].initial = text
            self.fields["prefer_not_to_say"].initial = prefer_not
            self.fields["exclusive_options"].initial = option_lines.exclusive_written(self.instance)

    def has_changed(self) -> bool:
        # A new row is a question once it has a text or options (its number and the default
        # parameters, which the script may hide, do not make it one).
        if self.instance.pk is None:
            return bool({"text", "options_text"} & set(self.changed_data))
        return super().has_changed()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind, name = data.get("kind") or "", data.get("mechanism_name") or ""
        # Only the chosen mechanism's parameter counts (the other box is hidden, or holds a default);
        # a direct question has none. The same for lo, hi, step (numeric) and at_most (multi-select).
        mechanism, found_kind = ldp.MECHANISMS.get(name), kinds.find(kind)
        for parameter in ("q", "epsilon"):
            if parameter != (mechanism.parameter if mechanism else "epsilon"):
                data[parameter] = None
        for shape in SHAPE_FIELDS:
            if not (found_kind and (found_kind.many if shape == "at_most" else found_kind.scale)):
                data[shape] = None
        scale = scales.scale_of(data.get("lo"), data.get("hi"), data.get("step"))
        found = option_lines.read(kind, name, data.get("options_text") or "", bool(data.get("prefer_not_to_say")),
                                  scale)
        self.option_rows, problem = option_lines.mark_exclusive(kind, found.rows, data.get("exclusive_options") or "")
        if problem:
            found.errors["exclusive_options"] = problem
        for field, error in found.errors.items():
            self.add_error(field, error)
        at_most = data.get("at_most")
        if at_most is not None and not found.errors and at_most >= len(found.rows):
            self.add_error("at_most", _("The limit must be below the number of options (%(k)d); leave it empty to "
                                        "allow any number of ticks.") % {"k": len(found.rows)})
        margin = margin_of(self.instance)
        if margin is not None and name and not sent_as_given(name):
            self.add_error("mechanism_name", switch_refused(self.instance, margin))
        elif margin is not None and not found.errors and [row.label for row in self.option_rows] != [
                option.label for option in self.instance.ordered_options()]:
            self.add_error("options_text", _("Question %(n)s has a population margin (%(source)s): its options keep "
                                             "their shares by option, so they cannot change while it has one. A "
                                             "researcher removes the margin on the results page first.")
                           % {"n": self.instance.order, "source": margin.source})
        if not self.errors and name and kind:
            try:
                self.planned = build_mechanism(name, kind, data.get("q"), data.get("epsilon"), len(found.rows),
                                               scale=scale, at_most=at_most)
            except (ValueError, TypeError):
                self.planned = None  # the model's clean() words it
        return data

    def save(self, commit: bool = True) -> Question:
        question = super().save(commit=commit)
        if commit:
            self.save_options(question)
        else:
            save_m2m = self.save_m2m

            def save_related() -> None:
                save_m2m()
                self.save_options(question)

            self.save_m2m = save_related  # type: ignore[method-assign]
        return question

    def save_options(self, question: Question) -> None:
        """Replace the question's options by the lines typed (order 0, 1, 2...), if they differ."""
        rows = self.option_rows
        saved = [Row(o.label, None if o.score is None else scales.exact(o.score),
                     None if o.lower is None else scales.exact(o.lower), o.exclusive)
                 for o in question.ordered_options()]
        if saved == rows:
            return
        if [replace(row, exclusive=False) for row in saved] == [replace(row, exclusive=False) for row in rows]:
            for option, row in zip(question.ordered_options(), rows, strict=True):  # only the flags: keep the
                if option.exclusive != row.exclusive:  # options, and their translations
                    option.exclusive = row.exclusive
                    option.save(update_fields=["exclusive"])
            return
        names = {option.label: option.name for option in question.ordered_options()}  # what conditions compare
        for option in question.options.all():
            option.delete()  # refused once the survey has reports
        for order, row in enumerate(rows):
            option = Option(question=question, order=order, label=row.label, exclusive=row.exclusive,
                            name=names.get(row.label, ""))
            option.score, option.lower = row.score, row.lower
            option.save()


def margin_of(question: Question) -> Any:
    """The population margin its weights are raked to (surveys.aggregation), or None; by the relation's name, as
    results depend on collection and not the other way round."""
    if question.pk is None:
        return None
    try:
        return question.population_margin
    except ObjectDoesNotExist:
        return None


def sent_as_given(name: str) -> bool:
    """Whether the mechanism sends one option as given: the only answers a margin can weight by."""
    mechanism = ldp.MECHANISMS.get(name)
    return mechanism is not None and mechanism.shape is ldp.Shape.DIRECT


def switch_refused(question: Question, margin: Any) -> str:
    return _("Question %(n)s has a population margin (%(source)s): the survey's weights are raked to its answers "
             "as given, so it must stay sent as given. A researcher removes the margin on the results page first.") \
        % {"n": question.order, "source": margin.source}


class QuestionFormSet(forms.BaseInlineFormSet):
    """Numbers the questions by row position and checks the survey's total epsilon, as it will be
    after this save, against its budget (each question with the options typed for it)."""

    def live_forms(self) -> list[Any]:
        """The rows that will be questions after this save: not deleted, not left empty."""
        return [form for form in self.forms
                if (form.has_changed() or form.instance.pk is not None)
                and not (getattr(form, "cleaned_data", None) or {}).get("DELETE")]

    def clean(self) -> None:
        if any(self.errors):
            return
        frozen = self.instance.has_reports()
        live = self.live_forms()
        if not frozen:
            rows = sorted(enumerate(live), key=lambda row: (row[1].cleaned_data.get("position") or 10**9, row[0]))
            for position, (_index, form) in enumerate(rows, start=1):
                form.instance.order = position
        super().clean()
        if frozen:
            return
        names = [(form.cleaned_data.get("name") or "").casefold() for form in live]
        twice = sorted({name for name in names if name and names.count(name) > 1})
        if twice:
            raise ValidationError(_("Two questions are named %(names)s: each name names one column of the "
                                    "exports.") % {"names": ", ".join(f"“{name}”" for name in twice)})
        self.check_conditions(live)
        mechanisms = [form.planned for form in live if form.planned is not None]
        total = ldp.survey_epsilon(mechanisms)
        budget = self.instance.epsilon_budget
        if total > budget:
            raise ValidationError(
                _("These questions cost ε = {total} per respondent, over the survey's budget of {budget}. "
                  "Lower some epsilons (or q), or raise the budget.").format(total=f"{total:.4f}",
                                                                            budget=f"{budget:g}"))

    def check_conditions(self, live: list[Any]) -> None:
        """Each row's skip-logic condition against the questions as they will be after this save."""
        known = [skip_logic.Known(variable_names.key(form.cleaned_data.get("name") or "", form.instance.order),
                                  form.instance.order, ldp.MECHANISMS[form.instance.mechanism_name].randomized)
                 for form in live]
        for form in live:
            wrong = form.instance.relevant and skip_logic.problem(form.instance.relevant, form.instance.order, known)
            if wrong:
                raise ValidationError(_("Question %(order)s, asked only if: %(problem)s")
                                      % {"order": form.instance.order, "problem": wrong})

    def save(self, commit: bool = True) -> list[models.Model]:
        if not commit or self.instance.pk is None or self.instance.has_reports():
            return super().save(commit)
        # Make room first: move the saved questions to orders no row will take, then save them
        # at their positions (the rows the form did not change too), so no two ever clash.
        existing = [form for form in self.initial_forms if form.instance.pk is not None]
        stored = Question.objects.filter(survey=self.instance)
        spare = max([len(self.forms), *stored.values_list("order", flat=True)]) + 1
        for index, form in enumerate(existing):
            stored.filter(pk=form.instance.pk).update(order=spare + index)
        saved = super().save(commit)
        for form in self.live_forms():
            if form.instance.pk is not None:
                stored.filter(pk=form.instance.pk).update(order=form.instance.order)
        return saved


class QuestionForm(forms.ModelForm):
    """The question's own page: the budget is checked on the instance as it will be saved."""

    class Meta:
        model = Question
        fields = ("survey", "order", "text", "name", "kind", "mechanism_name", "q", "epsilon", "lo", "hi", "step",
                  "at_most", "relevant",
                  "permanent_q", "permanent_epsilon")
        widgets = QuestionInlineForm.Meta.widgets

    def _post_clean(self) -> None:
        super()._post_clean()  # type: ignore[misc]  # Django's hook, absent from the stubs
        if self.errors:
            return
        wrong = self.instance.relevant and skip_logic.question_problem(self.instance)
        if wrong:
            self.add_error("relevant", wrong)
            return
        margin = margin_of(self.instance)
        if margin is not None and not sent_as_given(self.instance.mechanism_name):
            self.add_error("mechanism_name", switch_refused(self.instance, margin))
            return
        try:
            lifecycle.check_budget_with(self.instance.survey, self.instance)
        except ValidationError as error:
            self.add_error(None, error)
        except (ValueError, TypeError) as error:
            self.add_error(None, str(error))

