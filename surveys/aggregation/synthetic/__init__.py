"""Synthetic respondents drawn from a model fitted to the stored reports."""
