"""Weights to population margins: the margins and the weighted figures."""
