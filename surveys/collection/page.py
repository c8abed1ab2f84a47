"""What the respondent's page shows and what its script gets: every question with its wording
(surveys.collection.wording) and its inputs, and the client's data (each question's exact sampler,
and for multi-select and numeric questions their scale, bins, at-most limit), with the script's words translated here.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from django.utils import translation
from django.utils.formats import get_format
from django.utils.translation import get_language_info
from django.utils.translation import gettext as _

from ldp.planning.rounding import total_loss

from . import definition, kinds, languages, wave_history, wording
from .models import Survey
from .serializers import SurveyDefinitionSerializer


def client_text(features: list[str]) -> dict[str, str]:
    """The words respond.js shows for multi-select and numeric questions ({lo}, {hi}, {step}, {m} filled in
    by the script), and those of its `features`' modules (waves.js) when the page has them.
    The script writes them as text: a no-break space is written `&nbsp;`, as in the templates'
    words, and becomes the character here (it keeps "ε = 1.099" on one line)."""
    words = {
        "choose": _("Please choose an answer."),
        "number": _("Please enter a number."),
        "range": _("Please enter a number from {lo} to {hi}."),
        "grid": _("Please enter a number from {lo} to {hi} in steps of {step}, such as {below} or {above}."),
        "too_many": _("Please tick at most {m} boxes."),
        "exclusive": _("“{option}” is ticked alone: untick it or the other options."),
        "no_box": _("no box"),
        "bit": _("{bit} (leaning toward {end})"),
        "sending": _("Sending your randomized answers…"),
        "unreachable": _("Could not reach the server. Your randomized answers are kept; press the button to try "
                         "again."),
        "not_sent": _("Not sent: {reason}."),
        "status": _("the server answered {status}"),
        "reload": _("Please reload the page."),
        "invitation_only": _("This survey is by invitation only. Please open the link from your invitation."),
        "no_browser": _("{error}. This browser cannot take part; please use an up-to-date browser."),
        # The privacy loss the browser computes from the integers it will use (epsilon.js):
        "computed": _("Your browser computed the privacy loss from the numbers it will use to randomize: at most "
                      "ε&nbsp;=&nbsp;{epsilon} for all questions together."),
        "receipt_epsilon": _("Privacy loss of what was sent, computed by your browser from the numbers it used: "
                             "at most ε&nbsp;=&nbsp;{epsilon}."),
        "refuse_question": _("Your browser will not randomize your answers: the numbers it was given for question "
                             "{n} allow a privacy loss of ε&nbsp;=&nbsp;{epsilon}, above the maximum of 10 for one "
                             "question. Nothing has been sent."),
        "refuse_total": _("Your browser will not randomize your answers: the numbers it was given allow a privacy "
                          "loss of ε&nbsp;=&nbsp;{epsilon} in all, above the ε&nbsp;=&nbsp;{stated} this survey "
                          "states. Nothing has been sent."),
    }
    if "waves" in features:
        words |= _wave_text()
    if "conditions" in features:  # respond.js's words when relevance.js did not run (it failed its integrity)
        words["conditions_missing"] = _("The part of this page that shows a question only when it applies did "
                                        "not load")
    return {key: text.replace("&nbsp;", "\u00a0") for key, text in words.items()}


def _wave_text() -> dict[str, str]:
    """The words of waves.js, on a wave's page only, and respond.js's when waves.js did not run (it failed its
    integrity)."""
    return {
        "waves_missing": _("The part of this page that works out what the waves of this series cost did not load"),
        "computed_waves": _("Your browser computed the same for the answers it remembers: this wave, at most "
                            "ε&nbsp;=&nbsp;{wave}."),
        # What the waves this browser answered cost with this one (history.js historyLoss, remember.js answeredWaves):
        "history_none": _("This browser keeps no record of answering another wave of this series (clearing its "
                          "storage erases that record too): this wave alone costs at most ε&nbsp;=&nbsp;{all}."),
        "history_some": _("This browser keeps a record of answering other waves of this series: {waves}. Those and "
                          "this one together, as long as your answers stay the same, cost at most "
                          "ε&nbsp;=&nbsp;{all}, counted from the numbers each wave randomized with."),
        "refuse_remembered": _("Your browser will not randomize your answers: the numbers it was given for question "
                               "{n} allow a larger privacy loss than this page states for it. Nothing has been sent."),
    }


def input_mode(scale: dict[str, str]) -> str | None:
    """The phone keyboard for a number input: digits only for whole non-negative numbers, a decimal
    point when the grid has one, and none (the full keyboard, with its minus sign) below zero."""
    if Decimal(scale["lo"]) < 0:
        return None
    whole = all(Decimal(scale[name]) == Decimal(scale[name]).to_integral_value() for name in ("lo", "step"))
    return "numeric" if whole else "decimal"


def client_question(q: dict[str, Any], lineage: str | None) -> dict[str, Any]:
    """One question as respond.js needs it: where its inputs are, its sampler, how to read an answer, and on a wave's
    page its lineage (what the waves' totals add up by)."""
    found = {"id": q["id"], "order": q["order"], "kind": q["kind"], "options": q["options"],
             "sampler": q["mechanism"]["sampler"], "encoding": q["mechanism"]["encoding"], "p": q["mechanism"]["p"],
             "q_other": q["mechanism"]["q_other"], "answer": kinds.named(q["kind"]).answer}
    if lineage is not None:
        found["lineage"] = lineage
    if q["scale"] is not None:
        found["scale"] = q["scale"]
    if q["bins"] is not None:
        found["edges"] = [b["lower_index"] for b in q["bins"]]
    if kinds.named(q["kind"]).many:
        found["at_most"] = q["mechanism"]["parameters"]["at_most"]
        found["exclusive"] = q["exclusive"]
    if not q["mechanism"]["randomized"]:  # what skip-logic conditions compare (static/js/relevance.js)
        found.update({"key": q["name"], "choices": q["choices"]} if q["choices"] else {"key": q["name"],
                                                                                       "direct_number": True})
    if q["relevant"]:
        found["relevant"] = q["relevant"]
    remembered = q["remembered"]
    if remembered is not None:  # the permanent layer's integers and the stated figures the browser checks
        found["remembered"] = {"lineage": remembered["lineage"], "sampler": remembered["permanent"]["sampler"],
                               "wave_epsilon": remembered["wave_epsilon"],
                               "all_waves_epsilon": remembered["all_waves_epsilon"]}
    return found


def picker(offered: list[str], current: str) -> list[dict[str, Any]]:
    """The survey's languages for its picker: each named in itself (with its own lang and dir), capitalised as
    a label (Django names some as a sentence writes them: "español")."""
    found = []
    for code in offered:
        info = get_language_info(code)
        label = info["name_local"][:1].upper() + info["name_local"][1:]
        found.append({"code": code, "name": label, "dir": "rtl" if info["bidi"] else "ltr",
                      "current": code == current})
    return found


def missing_language(wanted: str | None, shown: str, offered: list[str]) -> dict[str, str] | None:
    """For a browser whose language the survey lacks: a notice in that language (with its code and direction)
    naming it, the language shown instead and the languages the survey offers."""
    if wanted is None:
        return None
    info = get_language_info(wanted)
    with translation.override(wanted):  # every name in the wanted language
        return {"code": wanted, "dir": "rtl" if info["bidi"] else "ltr",
                "text": _("This survey is not available in %(wanted)s: it is shown in %(shown)s. It is offered in: "
                          "%(offered)s.") % {"wanted": _name(wanted), "shown": _name(shown),
                                             "offered": ", ".join(map(_name, offered))}}


def _name(code: str) -> str:
    return languages.inside_a_sentence(str(get_language_info(code)["name_translated"]))


def context(survey: Survey, preview: bool, language: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the template's context, the client's data without where to post) for the page of `survey`,
    its texts in `language` (one it offers; default: its own)."""
    published = SurveyDefinitionSerializer(definition.read(survey, language)).data
    # The page features whose modules the page loads (surveys.collection.integrity.FEATURES), and nothing of them
    # (modules, words, lineages) on the others' pages.
    features = [name for name, wanted in (("waves", published["series"] is not None),
                                          ("conditions", any(q["relevant"] for q in published["questions"])))
                if wanted]
    lineages = wave_history.lineages_of([survey.pk]) if "waves" in features else {}
    questions = [{**q, "wording": wording.for_mechanism(q["mechanism"]), "template": kinds.named(q["kind"]).template,
                  "input_mode": input_mode(q["scale"]) if q["scale"] else None,
                  "remembered_figures": remembered_figures(q, published["series"])} for q in published["questions"]]
    client: dict[str, Any] = {  # all respond.js needs: where to post, and each question's exact sampler
        "preview": preview,
        "version": published["version"],
        "epsilonTotal": published["epsilon_total"],  # the stated total the browser checks the integers against
        "slug": survey.slug,
        "byInvitation": survey.access == Survey.Access.INVITATION,
        "features": features,
        "series": published["series"],
        "questions": [client_question(q, lineages.get(q["id"])) for q in published["questions"]],
        "otherWaves": wave_history.other_waves(survey),  # what the browser adds up with the waves it answered
        "text": client_text(features),
        # The page's figures are the server's, written with the language's separator (Django's formats);
        # the browser writes its own with the same one, in the same Latin digits.
        "decimalSeparator": get_format("DECIMAL_SEPARATOR"),
    }
    # Direct questions (not randomized) are named on the page; the total covers the randomized ones.
    unrandomized = [q for q in questions if not q["mechanism"]["randomized"]]
    total = total_loss(q["mechanism"]["sampler"] for q in published["questions"])
    return {
        "survey": survey, "definition": published, "questions": questions, "client": client, "preview": preview,
        "features": features,
        "language": published["language"], "languages": picker(published["languages"], published["language"]),
        "direction": "rtl" if get_language_info(published["language"])["bidi"] else "ltr",
        # Rounded up from the integers (ldp.planning.rounding), never to nearest: the page never says less than the
        # loss.
        "total_odds": total.odds_up(2), "total_epsilon": total.epsilon_up(3),
        "unrandomized": unrandomized, "any_randomized": len(unrandomized) < len(questions),
        "unrandomized_numbers": ", ".join(str(q["order"]) for q in unrandomized),
        "waves": waves_of(published),
    }, client


def waves_of(published: dict[str, Any]) -> dict[str, Any] | None:
    """What the page says of a wave whose questions remember their randomization: the wave and one wave's loss (the
    remembered questions' layers composed, the others' own), rounded up. What the waves a browser answered cost
    together only the browser can know (it alone knows which it answered): its script says it."""
    series = published["series"]
    remembered = [q for q in published["questions"] if q["remembered"] is not None]
    if series is None or not series["remembered"] or not remembered:
        return None
    others = [q for q in published["questions"] if q["remembered"] is None and q["mechanism"]["randomized"]]
    wave = sum(q["remembered"]["wave_epsilon"] for q in remembered)
    wave += sum(q["mechanism"]["effective_epsilon"] for q in others)
    return {"wave": series["wave"], "wave_epsilon": _up(wave), "afresh": ", ".join(str(q["order"]) for q in others)}


def remembered_figures(question: dict[str, Any], series: dict[str, Any] | None) -> dict[str, Decimal] | None:
    """A remembered question's two figures, rounded up: one wave, and every wave with its permanent layer and the
    same answer."""
    remembered = question["remembered"]
    if remembered is None or series is None or not series["remembered"]:
        return None
    return {"wave": _up(remembered["wave_epsilon"]),
            "all": total_loss([remembered["permanent"]["sampler"]]).epsilon_up(3)}


def _up(epsilon: float) -> Decimal:
    """Rounded up to thousandths: the page never says less than the loss."""
    return Decimal(math.ceil(epsilon * 1000)) / 1000

