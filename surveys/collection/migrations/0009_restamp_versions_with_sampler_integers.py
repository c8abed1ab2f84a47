"""The version digest now covers each question's sampler integers, so every survey's version
changed with that release. Responses stored before it carry the old digest of the same
configuration (the integers are a pure function of the parameters): re-stamp those with the new
one, so results, which refuse a version mismatch, keep counting them. A response whose version
matches neither (made with another configuration) is left as it is and still refused.

The digest of both versions is a frozen copy of this release's (surveys.collection.plan and
.scales, read through the historical models), so a later change to the plan cannot change what
this migration stamps; the mechanisms come from the ldp library, whose parameters and sampler
integers the digest covers."""

import hashlib
import json
from decimal import Decimal
from fractions import Fraction

from django.db import migrations

import ldp

MEAN_MECHANISMS = {"onebit", "dlaplace"}
MAX_STEPS = 10**6


class Unreadable(Exception):
    """A configuration no mechanism can be built from: nothing sound to re-stamp it with."""


def exact(value):
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    if number == number.to_integral_value():
        return number.quantize(Decimal(1)) + 0
    return number.normalize()


def scale_of(lo, hi, step):
    """{"lo", "hi", "step"} as the digest writes a scale, or None when they do not make one."""
    if lo is None or hi is None or step is None:
        return None
    lo, hi, step = exact(lo), exact(hi), exact(step)
    if not lo < hi or not step > 0:
        return None
    steps, rest = divmod(hi - lo, step)
    if rest != 0 or steps > MAX_STEPS:
        return None
    return lo, hi, step


def mechanism_of(question, options, scale):
    name, kind = question.mechanism_name, question.kind
    if name == "direct":
        return ldp.make("direct", k=max(options, 2))
    if name == "qrr":
        if question.q is None:
            raise ValueError("q-randomized response needs q")
        # A Decimal in this release's schema; an exact Fraction once migration 0020 stores q as text.
        q = question.q if isinstance(question.q, Fraction) else Fraction(str(Decimal(question.q).normalize()))
        return ldp.QRandomizedResponse(q)
    if question.epsilon is None:
        raise ValueError(f"{name} needs epsilon")
    if name == "multiselect":
        return ldp.MultiSelect(question.epsilon, max(options, 2), question.at_most)
    if name in MEAN_MECHANISMS:
        if scale is None:
            raise ValueError("a numeric question needs lo, hi and step")
        return (ldp.OneBitMean if name == "onebit" else ldp.DiscreteLaplace)(question.epsilon, *scale)
    return ldp.make(name, k=2 if kind == "yes_no" else max(options, 2), epsilon=question.epsilon)


def edges_of(scale, lowers):
    """A histogram's lower edges, or Unreadable when they do not cut the scale into bins."""
    lo, hi, step = scale
    if len(lowers) < 2 or any(edge is None for edge in lowers):
        raise Unreadable
    on_grid = all(lo <= edge <= hi and (edge - lo) % step == 0 for edge in lowers)
    if lowers[0] != lo or not on_grid or any(b <= a for a, b in zip(lowers, lowers[1:])):
        raise Unreadable
    return lowers


def versions(apps, survey_id):
    """(the digest of before the sampler integers, the digest of this release) of a survey's questions."""
    Question = apps.get_model("collection", "Question")
    Option = apps.get_model("collection", "Option")
    old, new = [], []
    for question in Question.objects.filter(survey_id=survey_id).order_by("order"):
        options = [(o.label, None if o.score is None else exact(o.score), None if o.lower is None else exact(o.lower))
                   for o in Option.objects.filter(question_id=question.pk).order_by("order")]
        numeric = question.kind == "numeric"
        scale = scale_of(question.lo, question.hi, question.step) if numeric else None
        if numeric and scale is None:
            raise Unreadable
        try:
            mechanism = mechanism_of(question, len(options), scale)
        except (ValueError, TypeError):
            raise Unreadable from None
        extra = {}
        if scale is not None:
            extra["scale"] = {"lo": str(scale[0]), "hi": str(scale[1]), "step": str(scale[2])}
        if numeric and question.mechanism_name == "krr":  # a histogram: its bins
            extra["edges"] = [str(edge) for edge in edges_of(scale, [lower for *_, lower in options])]
        if question.kind == "ordinal" and options:
            extra["scores"] = [None if score is None else str(score) for _, score, _ in options]
        common = [question.pk, question.kind, mechanism.to_dict(), [label for label, *_ in options],
                  *([extra] if extra else [])]
        old.append(common)
        new.append([*common, {"sampler": mechanism.sampler()}])
    return tuple(hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]
                 for definition in (old, new))


def restamp(apps, schema_editor):
    Response = apps.get_model("collection", "Response")
    for survey_id in Response.objects.order_by().values_list("survey_id", flat=True).distinct():
        try:
            old, new = versions(apps, survey_id)
        except Unreadable:
            continue  # a configuration that cannot be read: nothing sound to re-stamp it with
        Response.objects.filter(survey_id=survey_id, mechanism_version=old).update(mechanism_version=new)


class Migration(migrations.Migration):

    dependencies = [
        ("collection", "0008_response_version_index"),
    ]

    operations = [migrations.RunPython(restamp, migrations.RunPython.noop)]
