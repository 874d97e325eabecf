"""Compiled wiki pages: compilation from the entity graph and the page file format."""
