"""Means: which numeric mechanism adds less noise, and an ordinal question's mean score."""
