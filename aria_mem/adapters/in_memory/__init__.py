"""The store without a database: an in-memory twin of every PostgreSQL port, for tests."""
