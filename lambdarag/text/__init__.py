"""Text: normalisation, the tokenizer, dates and Chinese numerals (one copy of each)."""
