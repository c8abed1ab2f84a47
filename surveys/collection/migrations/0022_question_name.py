from django.db import migrations, models


class Migration(migrations.Migration):
    """A question's name: its column in the exports and its key (blank: q<order>)."""

    dependencies = [
        ("collection", "0021_cell_tallies"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="name",
            field=models.CharField(
                blank=True, default="", max_length=32, verbose_name="name",
                help_text="Optional: the question's column in the exports and its key in the figures, such as age "
                          "(a letter, then letters, digits or _). Blank: q and its position, such as q5."),
        ),
    ]
