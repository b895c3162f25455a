"""Embedding models: Ollama, LM Studio and an optional in-process sentence-transformers model."""
