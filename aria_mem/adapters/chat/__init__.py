"""Chat models: Ollama and LM Studio."""
