"""Tuning from feedback logs and labelled questions."""
