"""The version digest now covers each question's sampler integers, so every survey's version
changed with that release. Responses stored before it carry the old digest of the same
configuration (the integers are a pure function of the parameters): re-stamp those with the new
one, so results, which refuse a version mismatch, keep counting them. A response whose version
matches neither (made with another configuration) is left as it is and still refused."""

from django.db import migrations


def restamp(apps, schema_editor):
    from surveys.collection import plan  # the rules of this release; the tables are as it expects

    Response = apps.get_model("collection", "Response")
    for survey_id in Response.objects.order_by().values_list("survey_id", flat=True).distinct():
        rows = plan.rows_of([survey_id]).get(survey_id, ())
        try:
            old, new = plan.version_before_samplers(rows), plan.build(rows).version
        except plan.Unavailable:
            continue  # a configuration that cannot be read: nothing sound to re-stamp it with
        Response.objects.filter(survey_id=survey_id, mechanism_version=old).update(mechanism_version=new)


class Migration(migrations.Migration):

    dependencies = [
        ("collection", "0008_response_version_index"),
    ]

    operations = [migrations.RunPython(restamp, migrations.RunPython.noop)]
