"""Query understanding: condensation, scored intent, temporal scope and query expansion."""
