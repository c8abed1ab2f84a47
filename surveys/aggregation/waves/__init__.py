"""Results across the waves of a series."""
