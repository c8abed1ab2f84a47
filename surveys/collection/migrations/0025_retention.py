"""A survey's retention period (required at Open), when it was closed (retention counts from then) and when its
responses were deleted for it (surveys.collection.retention). Existing surveys get none: an admin sets it before
they open again, and nothing is deleted on a date nobody chose."""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("collection", "0024_skip_logic"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="closed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name="closed at"),
        ),
        migrations.AddField(
            model_name="survey",
            name="purged_at",
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name="responses deleted at"),
        ),
        migrations.AddField(
            model_name="survey",
            name="retention_days",
            field=models.PositiveIntegerField(
                blank=True, null=True, validators=[django.core.validators.MinValueValidator(1)],
                verbose_name="retention period (days)",
                help_text="Required to open: the responses are deleted this many days after the survey closes (the "
                          "Close button or the closing time, whichever comes first). Respondents are told before "
                          "they answer."),
        ),
    ]
