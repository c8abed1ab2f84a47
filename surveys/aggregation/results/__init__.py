"""The results service: debiased estimates from the stored counts, fixed-n and at any time."""
