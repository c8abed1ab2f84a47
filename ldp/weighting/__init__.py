"""Weights to population margins (raking) and the weighted estimates under them."""
