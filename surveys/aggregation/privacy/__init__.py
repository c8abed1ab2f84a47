"""The privacy statement: what is collected, what a stolen database or a release reveals."""
