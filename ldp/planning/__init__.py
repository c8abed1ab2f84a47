"""Planning a survey: the respondents needed, the privacy budget, figures rounded in the respondent's favour."""
