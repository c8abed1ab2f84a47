# Each new table is created with its fields and constraints at once (no rebuild of it on SQLite).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0012_option_exclusive'),
    ]

    operations = [
        migrations.CreateModel(
            name='PairTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('cell_a', models.IntegerField()),
                ('cell_b', models.IntegerField()),
                ('shard', models.PositiveSmallIntegerField()),
                ('count', models.BigIntegerField(default=0)),
                ('question_a', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                                 related_name='+', to='collection.question')),
                ('question_b', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                                 related_name='+', to='collection.question')),
            ],
            options={
                'constraints': [
                    models.UniqueConstraint(fields=('question_a', 'question_b', 'cell_a', 'cell_b', 'shard'),
                                            name='pair_tally_unique'),
                    models.CheckConstraint(condition=models.Q(('cell_a__gte', -1), ('cell_b__gte', -1)),
                                           name='pair_tally_cell_valid'),
                    models.CheckConstraint(condition=models.Q(('shard__lt', 16)), name='pair_tally_shard_valid'),
                    models.CheckConstraint(condition=models.Q(('count__gte', 0)), name='pair_tally_count_nonnegative'),
                ],
            },
        ),
        migrations.CreateModel(
            name='PairWatch',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('question_a', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                                 related_name='+', to='collection.question')),
                ('question_b', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                                 related_name='+', to='collection.question')),
            ],
            options={
                'constraints': [
                    models.UniqueConstraint(fields=('question_a', 'question_b'), name='pair_watch_unique'),
                    models.CheckConstraint(condition=models.Q(('question_a__lt', models.F('question_b'))),
                                           name='pair_watch_ordered'),
                ],
            },
        ),
        migrations.RemoveIndex(
            model_name='response',
            name='response_survey_version',
        ),
        migrations.AddIndex(
            model_name='response',
            index=models.Index(fields=['survey', 'mechanism_version', 'submitted_on'],
                               name='response_survey_version_day'),
        ),
    ]
