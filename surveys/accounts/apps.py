from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "surveys.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # The sign-in lockout counts in the cache: `check --deploy` warns when that cache is per process.
        from surveys import shared_counts  # noqa: F401
