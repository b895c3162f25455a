"""PostgreSQL: the source of truth (psycopg 3), and the embedded server for the default setup."""
