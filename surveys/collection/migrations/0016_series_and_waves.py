# Waves of a series: the series, a survey's place in it, each question's lineage (the same question in every
# wave) and permanent layer, and a response's word that its browser answered an earlier wave.
# Existing questions each get a lineage of their own (a default would give them all one).

import django.db.models.deletion
import uuid
from django.conf import settings
from django.db import migrations, models


def each_its_own_lineage(apps, schema_editor):
    Question = apps.get_model('collection', 'Question')
    for question in Question.objects.only('pk').iterator():
        Question.objects.filter(pk=question.pk).update(lineage=uuid.uuid4())


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0015_direct_number'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Series',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('title', models.CharField(max_length=200)),
                ('remembered', models.BooleanField(default=True, help_text="Each respondent's browser remembers a permanent randomized answer per question and answer, and every wave sends a fresh randomization of it: answering the same in every wave reveals no more than the permanent layer. Off: every wave is randomized afresh and cannot be linked by its pattern, but each wave adds to what a repeated respondent reveals.", verbose_name='remembered randomization')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'verbose_name_plural': 'series',
                'ordering': ['-created_at'],
            },
        ),
        migrations.AddField(
            model_name='question',
            name='lineage',
            field=models.UUIDField(null=True, editable=False),
        ),
        migrations.RunPython(each_its_own_lineage, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='question',
            name='lineage',
            field=models.UUIDField(default=uuid.uuid4, editable=False),
        ),
        migrations.AddField(
            model_name='question',
            name='permanent_epsilon',
            field=models.FloatField(blank=True, help_text='Waves of a series that remembers randomization, other one-answer mechanisms: epsilon of the permanent layer, remembered across waves. Blank: not remembered.', null=True),
        ),
        migrations.AddField(
            model_name='question',
            name='permanent_q',
            field=models.DecimalField(blank=True, decimal_places=6, help_text="Waves of a series that remembers randomization, q-randomized response: q of the permanent layer, remembered across waves (q or epsilon above is then each wave's fresh layer). Blank: not remembered.", max_digits=7, null=True),
        ),
        migrations.AddField(
            model_name='response',
            name='earlier_wave',
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name='survey',
            name='wave',
            field=models.PositiveIntegerField(blank=True, help_text='Its number in the series: 1, 2, ...', null=True),
        ),
        migrations.AddConstraint(
            model_name='question',
            constraint=models.UniqueConstraint(fields=('survey', 'lineage'), name='question_lineage_unique'),
        ),
        migrations.AddConstraint(
            model_name='question',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('permanent_epsilon__isnull', True), ('permanent_q__isnull', True)), models.Q(('mechanism_name__in', ['qrr']), ('permanent_epsilon__isnull', True), ('permanent_q__isnull', False)), models.Q(('mechanism_name__in', ['bitflip', 'krr', 'sue', 'oue']), ('permanent_epsilon__isnull', False), ('permanent_q__isnull', True)), _connector='OR'), name='question_permanent_layer_fits'),
        ),
        migrations.AddField(
            model_name='survey',
            name='series',
            field=models.ForeignKey(blank=True, help_text='Optional: the series this survey is a wave of.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='waves', to='collection.series'),
        ),
        migrations.AddConstraint(
            model_name='survey',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('series__isnull', True), ('wave__isnull', True)), models.Q(('series__isnull', False), ('wave__gte', 1)), _connector='OR'), name='survey_wave_of_a_series'),
        ),
        migrations.AddConstraint(
            model_name='survey',
            constraint=models.UniqueConstraint(fields=('series', 'wave'), name='survey_wave_unique'),
        ),
    ]
