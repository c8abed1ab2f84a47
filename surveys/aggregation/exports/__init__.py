"""Exports: report files prepared whole, their codebook, formats and the figures' tables."""
