"""The synthetic rows' quality warnings in the reader's language: `ldp.synthetic.quality` gives each as a code with
its values (ldp has no translations), stored so in the file's codebook; here each code has its sentence, said when
the page or the API shows it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import gettext as _


def _not_compared(values: Mapping[str, Any]) -> str:
    return _("No debiased table to compare with for %(names)s (a mean of discrete Laplace reports, or a question of "
             "more than six options sent as bits).") % {"names": values["names"]}


def _too_few(values: Mapping[str, Any]) -> str:
    return _("%(name)s: %(n)s responses, fewer than the %(needed)s the planner needs for ±%(margin)s at 95%%.") % {
        **_numbers(values), "name": values["name"]}


def _never_together(values: Mapping[str, Any]) -> str:
    return _("%(a)s and %(b)s were never answered together: how they go together in these rows is the model's "
             "guess.") % {"a": values["a"], "b": values["b"]}


def _pair_too_few(values: Mapping[str, Any]) -> str:
    return _("%(a)s and %(b)s: %(n)s responses answering both, fewer than the %(needed)s the planner needs for "
             "±%(margin)s on every cell at 95%%.") % {**_numbers(values), "a": values["a"], "b": values["b"]}


def _numbers(values: Mapping[str, Any]) -> dict[str, str]:
    return {"n": f"{values['n']:,}", "needed": f"{values['needed']:,}", "margin": f"{values['margin']:g}"}


SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "not_compared": _not_compared,
    "too_few": _too_few,
    "never_together": _never_together,
    "pair_too_few": _pair_too_few,
}


def refusal(refused: Mapping[str, Any]) -> str:
    """Why a weighted survey's rows are not weighted (`synthetic_weights`), in the reader's language where the app
    has the words (the weighted figures' own refusals), else as stored."""
    if refused.get("code") == "unanswered":
        return _("Question %(question)s was not answered by every weighted response.") % refused["values"]
    return _(str(refused.get("text", "")))


def sentence(warning: Mapping[str, Any] | str) -> str:
    """A stored warning ({"code", "values", "text"}) in the reader's language; a code this app does not know (a file
    made by a newer version), or a file's plain English sentence (made before codes), as it was stored."""
    if isinstance(warning, str):
        return warning
    said = SENTENCES.get(warning.get("code", ""))
    return said(warning["values"]) if said is not None else str(warning.get("text", ""))
