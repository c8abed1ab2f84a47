from django.apps import AppConfig


class AggregationConfig(AppConfig):
    name = "surveys.aggregation"
    verbose_name = "Results"
