"""The analysis scripts generated per survey, for R and Python."""
