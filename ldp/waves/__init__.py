"""Waves of a series: the change between two waves and the agreement of their answers."""
