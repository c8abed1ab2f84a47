"""An optional hint under a question (an XLSForm's `hint`), with its translations."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("collection", "0022_question_name"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="hint",
            field=models.CharField(blank=True, help_text="Optional: a few words shown under the question.",
                                   max_length=500, verbose_name="hint"),
        ),
        migrations.AddField(
            model_name="questiontranslation",
            name="hint",
            field=models.CharField(blank=True, max_length=500),
        ),
    ]
