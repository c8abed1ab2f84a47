"""Migration accounts 0001: the unconfirmed devices older releases stored on the first visit of
the enrolment page (their keys shown to every session of the account) are dropped; confirmed
devices stay."""

import importlib

from django.apps import apps
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.factories import make_user

drop_unconfirmed = importlib.import_module("surveys.accounts.migrations.0001_drop_unconfirmed_devices").drop_unconfirmed


def test_it_drops_every_unconfirmed_device_and_keeps_the_confirmed_ones(staff, device):
    TOTPDevice.objects.create(user=staff, name="planted", confirmed=False)
    TOTPDevice.objects.create(user=make_user("newcomer", is_staff=True), name="pending", confirmed=False)
    drop_unconfirmed(apps, None)
    assert list(TOTPDevice.objects.values_list("pk", "confirmed")) == [(device.pk, True)]
