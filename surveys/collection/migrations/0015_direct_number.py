# A numeric question asked directly (direct_number): its mechanism name, its constraints (literal: frozen here).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0014_pair_counting'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='question',
            name='question_has_its_parameter',
        ),
        migrations.RemoveConstraint(
            model_name='question',
            name='question_mechanism_fits_kind',
        ),
        migrations.AlterField(
            model_name='question',
            name='mechanism_name',
            field=models.CharField(choices=[('qrr', 'q-randomized response (yes/no)'), ('bitflip', 'Epsilon bit flip (yes/no)'), ('krr', 'k-ary randomized response (single choice, ordinal levels, numeric bins)'), ('sue', 'Symmetric unary encoding (single choice, ordinal levels)'), ('oue', 'Optimized unary encoding (single choice, ordinal levels)'), ('direct', 'Not randomized (direct)'), ('multiselect', 'Multi-select bits (multi-select)'), ('onebit', '1-bit mean (numeric: the mean)'), ('dlaplace', 'Discrete Laplace (numeric: the mean)'), ('direct_number', 'Not randomized (direct)')], default='qrr', max_length=16, verbose_name='mechanism'),
        ),
        migrations.AddConstraint(
            model_name='question',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('epsilon__isnull', True), ('mechanism_name', 'qrr'), ('q__isnull', False)), models.Q(('epsilon__isnull', True), ('mechanism_name__in', ['direct', 'direct_number']), ('q__isnull', True)), models.Q(models.Q(('mechanism_name__in', ['qrr', 'direct', 'direct_number']), _negated=True), ('epsilon__isnull', False), ('q__isnull', True)), _connector='OR'), name='question_has_its_parameter'),
        ),
        migrations.AddConstraint(
            model_name='question',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'yes_no'), ('mechanism_name__in', ['qrr', 'bitflip'])), models.Q(('kind', 'single_choice'), ('mechanism_name__in', ['krr', 'sue', 'oue', 'direct'])), models.Q(('kind', 'multi_select'), ('mechanism_name__in', ['multiselect'])), models.Q(('kind', 'numeric'), ('mechanism_name__in', ['onebit', 'dlaplace', 'krr', 'direct_number'])), models.Q(('kind', 'ordinal'), ('mechanism_name__in', ['krr', 'sue', 'oue'])), _connector='OR'), name='question_mechanism_fits_kind'),
        ),
    ]
