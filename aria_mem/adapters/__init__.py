"""Adapters: the only place third-party clients are imported."""
