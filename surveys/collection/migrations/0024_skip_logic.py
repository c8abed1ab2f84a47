"""Skip logic: a question's condition on earlier direct answers (XLSForm's `relevant`), and each option's XLSForm
choice name, which conditions compare answers with."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("collection", "0023_question_hint"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="relevant",
            field=models.CharField(
                blank=True, default="", max_length=1000, verbose_name="asked only if",
                help_text="Optional skip logic, as XLSForm's relevant column: a condition on earlier questions asked "
                          "directly (not randomized), such as ${has_children} = 'yes' and ${age} >= 18. Blank: asked "
                          "of everyone."),
        ),
        migrations.AddField(
            model_name="option",
            name="name",
            field=models.CharField(blank=True, default="", max_length=64, verbose_name="choice name"),
        ),
    ]
