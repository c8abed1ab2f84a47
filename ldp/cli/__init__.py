"""`python -m ldp`: the command line, one module per command."""
