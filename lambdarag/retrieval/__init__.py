"""Retrieval: the loaded knowledge base, the parallel channel run, fusion, the gate, version preference."""
