"""The generated analysis scripts, as code: the Python script's body (python/) and how it is put together."""
