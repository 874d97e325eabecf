"""LambdaRAG: per-domain knowledge-base question answering."""

__version__ = "0.1.0"
