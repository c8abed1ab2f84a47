from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "surveys.accounts"
    label = "accounts"
    verbose_name = "Accounts"
