"""Drop every unconfirmed two-factor device. Enrolment used to store one on the first visit of the
enrolment page and show its key to every later session of the account, so its key may be known to
somebody with the password alone; an enrolment's key now lives only in the session that began it."""

from django.db import migrations


def drop_unconfirmed(apps, schema_editor):
    apps.get_model("otp_totp", "TOTPDevice").objects.filter(confirmed=False).delete()


class Migration(migrations.Migration):
    dependencies = [("otp_totp", "0003_add_timestamps")]

    operations = [migrations.RunPython(drop_unconfirmed, migrations.RunPython.noop, elidable=True)]
