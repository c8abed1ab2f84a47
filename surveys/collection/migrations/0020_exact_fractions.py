"""q and permanent_q are stored exactly, as text ("0.5", "2/3"), not as six-place decimals, which could not
hold 2/3 (forced response's P(yes | yes) came out 0.8333335, not 5/6).

An existing q keeps its value: the decimal column's value becomes text (PostgreSQL casts 0.500000 to
'0.500000', SQLite copies 0.5 as '0.5'), then every q is rewritten as the shortest exact text
(`ldp.mechanisms.exact_q.text`: 0.500000 -> "0.5"), the text the mechanism was already built from and the version
digest already wrote (`to_dict`). So every survey's mechanism, the integers its browsers sample and its
version stay what they were, and its stored responses keep counting.

Backwards, a q that a six-place decimal cannot hold (2/3) cannot go back: the migration refuses rather
than round it.
"""

from decimal import Decimal
from fractions import Fraction

from django.db import migrations
from django.db.migrations.exceptions import IrreversibleError

import surveys.collection.models.exact_q
from ldp.mechanisms import exact_q

FIELDS = ("q", "permanent_q")


def exact_text(apps, schema_editor):
    Question = apps.get_model("collection", "Question")
    for pk, *values in Question.objects.order_by("pk").values_list("pk", *FIELDS):
        Question.objects.filter(pk=pk).update(**{
            name: None if value is None else exact_q.text(exact_q.read(value)) for name, value in zip(FIELDS, values, strict=True)})


def six_places(apps, schema_editor):
    Question = apps.get_model("collection", "Question")
    for pk, *values in Question.objects.order_by("pk").values_list("pk", *FIELDS):
        found = {}
        for name, value in zip(FIELDS, values, strict=True):
            if value is None:
                found[name] = None
                continue
            q = exact_q.read(value)
            decimal = Decimal(q.numerator) / Decimal(q.denominator)
            if Fraction(decimal.quantize(Decimal("0.000001"))) != q:
                raise IrreversibleError(
                    f"question {pk}: {name} = {exact_q.text(q)} has no six-place decimal; change it first")
            found[name] = str(decimal.quantize(Decimal("0.000001")))
        Question.objects.filter(pk=pk).update(**found)


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0019_planned_size'),
    ]

    operations = [
        migrations.AlterField(
            model_name='question',
            name='permanent_q',
            field=surveys.collection.models.exact_q.ExactQField(blank=True, help_text="Waves of a series that remembers randomization, q-randomized response: q of the permanent layer, remembered across waves (q or epsilon above is then each wave's fresh layer). Blank: not remembered.", max_length=40, null=True),
        ),
        migrations.AlterField(
            model_name='question',
            name='q',
            field=surveys.collection.models.exact_q.ExactQField(blank=True, help_text='q-randomized response only: the probability of answering truthfully (otherwise a fair coin answers), as a decimal or an exact fraction. 0.5 gives epsilon = ln 3; 2/3 is forced response with 1/6 forced yes and 1/6 forced no.', max_length=40, null=True),
        ),
        migrations.RunPython(exact_text, six_places),
    ]
