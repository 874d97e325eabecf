"""Model clients: OpenAI-compatible LLM chat and embeddings, and the local offline embedder."""
