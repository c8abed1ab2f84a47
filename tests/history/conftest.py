"""Fixtures for the configuration history's tests (the fixed cast lives in tests/conftest.py)."""

import pytest


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client
