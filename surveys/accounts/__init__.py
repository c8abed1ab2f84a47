"""Staff and researcher accounts: sign-in throttling, two-factor sign-in (TOTP) for staff, and the
admin site that enforces it."""
