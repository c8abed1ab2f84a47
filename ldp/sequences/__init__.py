"""Confidence sequences: intervals valid at every look, for fractions and means."""
