"""The entity graph: entity and relation records, rule extraction, the lexicon, the graph build."""
