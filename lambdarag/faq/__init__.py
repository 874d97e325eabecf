"""Curated answers: question → answer pairs a domain keeps, matched before retrieval (docs/FAQ.md)."""
