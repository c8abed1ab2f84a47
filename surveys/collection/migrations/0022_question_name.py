"""Questions get a name (an XLSForm's `name`: their column in exports, their name in formulas), q<order> for
those that exist, unique per survey; and an optional hint, with its translations."""

from django.db import migrations, models
from django.db.models.functions import Cast, Concat


def name_by_order(apps, schema_editor):
    Question = apps.get_model("collection", "Question")  # one UPDATE, however many questions
    Question.objects.update(name=Concat(models.Value("q"), Cast("order", models.CharField())))


class Migration(migrations.Migration):

    dependencies = [
        ("collection", "0019_planned_size"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="name",
            field=models.SlugField(blank=True, help_text="Letters, digits, _ and -, unique in the survey: the question's column in exports and its name in formulas. Blank: q and its order.", max_length=64, verbose_name="name"),
        ),
        migrations.AddField(
            model_name="question",
            name="hint",
            field=models.CharField(blank=True, help_text="Optional: a few words shown under the question.", max_length=500, verbose_name="hint"),
        ),
        migrations.AddField(
            model_name="questiontranslation",
            name="hint",
            field=models.CharField(blank=True, max_length=500),
        ),
        migrations.RunPython(name_by_order, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="question",
            constraint=models.UniqueConstraint(fields=("survey", "name"), name="question_name_unique"),
        ),
    ]
