from django.apps import AppConfig


class CollectionConfig(AppConfig):
    name = "surveys.collection"
    verbose_name = "Surveys"
