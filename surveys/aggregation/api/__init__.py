"""The results API: its views, serializers and schema."""
