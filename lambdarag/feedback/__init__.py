"""The feedback logs every request appends to (query, missing, ratings)."""
