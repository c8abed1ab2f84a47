"""What every kind of question declares, and the rules they share.

A kind is one value (a subclass of `Kind`, instantiated once in its own module): its name and label,
the mechanisms that fit it (the fallback first), which boxes the admin shows for it, how its options
are typed and checked, and what the plan and the page need of it. The rest of the app asks the kind
(`surveys.collection.kinds.named`) instead of comparing kind names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from django.utils.functional import Promise
from django.utils.translation import gettext as _

import ldp
from ldp.mechanisms import exact_q
from ldp.mechanisms.exact_q import QValue
from ldp.mechanisms.fields import build

from .. import scales
from ..scales import Scale

MAX_OPTIONS = 32  # unary and multi-select reports are stored as a bitmask in a 64-bit integer


@dataclass(frozen=True)
class Row:
    """One option as the admin typed it: its label, an ordinal level's score, a bin's lower edge, and
    whether it is ticked alone (a multi-select's "None of these")."""

    label: str
    score: Decimal | None = None
    lower: Decimal | None = None
    exclusive: bool = False


class Kind:
    name: ClassVar[str]
    label: ClassVar[Promise]  # translated lazily: the admin's choice
    mechanisms: ClassVar[tuple[str, ...]]  # the fallback first: the admin's script picks it when the kind changes
    words: ClassVar[str]  # which mechanisms fit, in words (the error when another is asked for)
    # Options (levels, bins): always, never, or only with this mechanism (a numeric question's bins).
    options: ClassVar[bool | str] = True
    scale: ClassVar[bool] = False  # answers on a grid lo..hi by step
    many: ClassVar[bool] = False  # any subset of the options: an at-most limit and exclusive options
    prefer_not: ClassVar[bool] = False  # may end with the ordinary, randomized "Prefer not to say"
    scored: ClassVar[bool] = False  # levels with scores, kept by the plan for the mean score
    fixed_labels: ClassVar[tuple[str, ...]] = ()  # answers that are no options (yes/no: No, Yes)
    # How the browser reads a true answer (static/js/answers.js): one radio, ticks, or a number.
    answer: ClassVar[str] = "one"
    # What the admin reads when a mechanism that is not randomized is asked of a kind it does not fit.
    direct_refusal: ClassVar[str] = ("Only single-choice questions can be asked directly (not randomized), for "
                                     "covariates such as an age band or a region.")

    def __repr__(self) -> str:
        return f"<kind {self.name}>"

    @property
    def template(self) -> str:
        """The page's inputs for one question of this kind."""
        return f"collection/kinds/{self.name}.html"

    def fits(self, name: str) -> bool:
        return name in self.mechanisms

    def has_options(self, name: str) -> bool:
        """Whether a question of this kind, with this mechanism, has options (levels, bins)."""
        return self.options is True or self.options == name

    def options_optional(self, name: str) -> bool:
        """Whether a question of this kind with mechanism `name` may have no options at all (a direct number's bins,
        which only break-downs use)."""
        return False

    def respondents_see_options(self, name: str) -> bool:
        """Whether respondents read its options (so an offered language must translate them)."""
        return self.has_options(name)

    def boxes(self) -> dict[str, object]:
        """What the admin's script needs: the mechanisms, and which boxes the kind shows."""
        return {"mechanisms": list(self.mechanisms), "options": self.options, "scale": self.scale,
                "at_most": self.many, "exclusive": self.many, "prefer_not": self.prefer_not}

    def labels(self, options: Sequence[str]) -> list[str]:
        """The answers in report order, from the option labels."""
        return list(self.fixed_labels) if self.fixed_labels else list(options)

    def relatable(self, mechanism: ldp.Mechanism) -> bool:
        """Whether a cross-tab can take a question of this kind: it needs options (a mean has none)."""
        return not mechanism.estimates_mean

    # --- the mechanism -----------------------------------------------------------------

    def build(self, name: str, q: QValue | None, epsilon: float | None, options: int, *,
              scale: Scale | None = None, at_most: int | None = None) -> ldp.Mechanism:
        """A question's mechanism from its fields and number of options (ValueError if it cannot be).

        A question without its options yet is judged as if it had two; a mean needs the scale."""
        mechanism = ldp.MECHANISMS.get(name)
        k = len(self.fixed_labels) or max(options, 2)
        if mechanism is not None and not mechanism.randomized:
            if not self.fits(name):
                raise ValueError("only single-choice questions can be asked directly (not randomized)")
            if q is not None or epsilon is not None:
                raise ValueError("a direct question takes neither q nor epsilon: it is not randomized")
            return build(name, k=k)
        if mechanism is None or not self.fits(name):
            raise ValueError(self.words)
        if mechanism.parameter == "q":
            if q is None:
                raise ValueError(f"{mechanism.label} needs q")
            return build(name, q=exact_q.typed(q))  # exactly as stored, or refused: never rounded
        if epsilon is None:
            raise ValueError(f"{name} needs epsilon")
        if mechanism.estimates_mean:
            if scale is None:
                raise ValueError("a numeric question needs lo, hi and step")
            return build(name, epsilon=epsilon, lo=scale.lo, hi=scale.hi, step=scale.step)
        return build(name, k=k if "k" in mechanism.keys else None,  # a yes/no mechanism's two answers are fixed
                     epsilon=epsilon, at_most=at_most if self.many else None)

    def mismatch(self, name: str) -> str | None:
        """The admin's error when `name` does not fit this kind, or None."""
        return None if self.fits(name) else self.words[0].upper() + self.words[1:] + "."

    def mechanism_errors(self, name: str, q: QValue | None, epsilon: float | None) -> dict[str, str]:
        """What does not fit: the mechanism for this kind, and its parameter, in words, by field."""
        errors = {}
        mechanism = ldp.MECHANISMS.get(name)
        if mechanism is not None and not mechanism.randomized:
            if not self.fits(name):
                errors["mechanism_name"] = self.direct_refusal
            if q is not None or epsilon is not None:
                errors["epsilon" if epsilon is not None else "q"] = (
                    "Leave q and epsilon empty for a direct question: it is not randomized, its answer is "
                    "sent as given.")
            return errors
        mismatch = self.mismatch(name)
        if mismatch:
            errors["mechanism_name"] = mismatch
        if mechanism is not None and mechanism.parameter == "q":
            if q is None:
                errors["q"] = _("q-randomized response needs q.")
            if epsilon is not None:
                errors["epsilon"] = _("Leave epsilon empty for q-randomized response; q sets it.")
        else:
            if epsilon is None:
                errors["epsilon"] = _("This mechanism needs epsilon.")
            if q is not None:
                errors["q"] = _("q is only for q-randomized response.")
        return errors

    # --- the question's shape and options ----------------------------------------------

    def shape_errors(self, lo: Decimal | None, hi: Decimal | None, step: Decimal | None,
                     at_most: int | None) -> dict[str, str]:
        """lo, hi and step (a kind with a scale only), and the at-most limit (a kind of many ticks), by field."""
        errors = {}
        if self.scale:
            errors.update(scales.scale_problems(lo, hi, step))
        else:
            given = {"lo": lo, "hi": hi, "step": step}
            errors.update({name: "Only numeric questions have lo, hi and step." for name, value in given.items()
                           if value is not None})
        if at_most is not None and not self.many:
            errors["at_most"] = _("Only multi-select questions have an at-most limit.")
        return errors

    def exclusive_problem(self, exclusive: list[bool]) -> str:
        """What is wrong with a question's exclusive options (one flag per option, in order), or "".

        An exclusive option ("None of these") is ticked alone: ticking it unticks the others. Several
        may be exclusive ("None of these" and "Prefer not to say" each exclude everything else), but at
        least two must not be, or the question is a single choice. The rule is on the true answer, read
        in the browser; the mechanism and its epsilon do not depend on it."""
        if not any(exclusive):
            return ""
        if not self.many:
            return _("Only multi-select questions have exclusive options (such as “None of these”).")
        if len(exclusive) - sum(exclusive) < 2:
            return _("At least two options must not be exclusive; otherwise ask a single-choice question.")
        return ""

    def read_options(self, typed: list[str], scale: Scale | None, errors: dict[str, str]) -> list[Row]:
        """The option rows from the lines the admin typed (problems go into `errors`, by field)."""
        return [Row(label) for label in typed]

    def written_options(self, scale: Scale | None, shown: Sequence[Any]) -> list[str]:
        """Saved options as the admin's box shows them, one line each (inverse of `read_options`)."""
        return [option.label for option in shown]

    def no_options(self) -> str:
        """The admin's error when options are typed for a question of this kind that has none."""
        raise NotImplementedError(self.name)

    def too_few_options(self) -> str:
        """The admin's error when fewer than two options are typed."""
        raise NotImplementedError(self.name)

    def needs_options_to_open(self) -> str:
        """The admin's warning when a saved question has fewer than two options."""
        return _("This question needs at least two options (levels, bins) before its survey can open.")

    def option_problems(self, question: Any, options: Sequence[Any]) -> list[str]:
        """What keeps a survey from opening in a question's saved options (2 to MAX_OPTIONS of them)."""
        problem = self.exclusive_problem([o.exclusive for o in options])
        return [_("question %(n)s: %(problem)s") % {"n": question.order, "problem": problem}] if problem else []
