"""The generated analysis.py's body: modules checked and tested here, concatenated into the script (amalgamation.py)."""
