"""The history of every configuration change (who, what, when, each field before and after), shown
read-only in the admin."""
