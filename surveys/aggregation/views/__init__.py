"""The researcher pages: check access, read the parameters, call a service, render."""
