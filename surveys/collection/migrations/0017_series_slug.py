# A series' own slug, for its stable link /w/<slug>/ that opens its current wave. An existing series takes its
# first wave's slug without "-wave-<n>" (as guessable as its waves' links, never its title), or its title when it
# has no wave; -2, -3, ... where two would share one. The code it runs is copied here, frozen.

import re

from django.db import migrations, models
from django.utils.text import slugify

LENGTH = 50


def _free(wanted, taken):
    found, extra = wanted[:LENGTH], 1
    while found in taken:
        extra += 1
        found = f"{wanted[:LENGTH - len(str(extra)) - 1]}-{extra}"
    taken.add(found)
    return found


def slug_each_series(apps, schema_editor):
    Series = apps.get_model('collection', 'Series')
    Survey = apps.get_model('collection', 'Survey')
    taken = set()
    for series in Series.objects.order_by('pk').iterator():
        first = Survey.objects.filter(series_id=series.pk).order_by('wave').values_list('slug', flat=True).first()
        wanted = re.sub(r'-wave-\d+$', '', first) if first else (slugify(series.title) or 'series')
        Series.objects.filter(pk=series.pk).update(slug=_free(wanted, taken))


class Migration(migrations.Migration):

    dependencies = [
        ('collection', '0016_series_and_waves'),
    ]

    operations = [
        migrations.AddField(
            model_name='series',
            name='slug',
            field=models.SlugField(null=True, db_index=False),
        ),
        migrations.RunPython(slug_each_series, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='series',
            name='slug',
            field=models.SlugField(help_text="The series' own link, /w/<slug>/, always opens its current wave: the newest wave accepting responses. Anyone with it reaches that wave, whatever the wave's own link; if the questions are sensitive, choose a slug nobody can guess.", unique=True),
        ),
    ]
