"""Two questions together: their joint table, its counts and the test of independence."""
