"""Evaluation: metrics, the naive baseline, the eval runner over any corpus.jsonl + questions.jsonl, reports."""
