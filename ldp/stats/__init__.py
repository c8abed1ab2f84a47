"""Statistics every estimate shares: intervals, debiased frequencies, grouped rows."""
