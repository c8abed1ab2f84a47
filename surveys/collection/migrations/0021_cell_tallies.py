# Each new table is created with its fields and constraints at once (no rebuild of it on SQLite).

import django.db.models.deletion
from django.db import migrations, models


def _key(name: str, to: str) -> tuple[str, models.ForeignKey]:
    return (name, models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+',
                                    to=to))


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0020_exact_fractions'),
    ]

    operations = [
        migrations.CreateModel(
            name='CellWatch',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('keys', models.CharField(max_length=200)),
                _key('survey', 'collection.survey'),
            ],
            options={'constraints': [models.UniqueConstraint(fields=('survey', 'keys'), name='cell_watch_unique')]},
        ),
        migrations.CreateModel(
            name='CellTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('cell', models.BigIntegerField()),
                ('value', models.BigIntegerField()),
                ('shard', models.PositiveSmallIntegerField()),
                ('count', models.BigIntegerField(default=0)),
                _key('question', 'collection.question'),
                _key('watch', 'collection.cellwatch'),
            ],
            options={
                'constraints': [
                    models.UniqueConstraint(fields=('watch', 'question', 'cell', 'value', 'shard'),
                                            name='cell_tally_unique'),
                    models.CheckConstraint(condition=models.Q(('cell__gte', 0)), name='cell_tally_cell_valid'),
                    models.CheckConstraint(condition=models.Q(('shard__lt', 16)), name='cell_tally_shard_valid'),
                    models.CheckConstraint(condition=models.Q(('count__gte', 0)), name='cell_tally_count_nonnegative'),
                ],
            },
        ),
        migrations.CreateModel(
            name='CellKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('multiplier', models.BigIntegerField()),
                ('keys', models.PositiveSmallIntegerField()),
                _key('question', 'collection.question'),
                _key('watch', 'collection.cellwatch'),
            ],
            options={'constraints': [models.UniqueConstraint(fields=('question', 'watch'), name='cell_key_unique')]},
        ),
    ]
