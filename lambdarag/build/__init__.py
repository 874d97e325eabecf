"""The build path: the steps extract → index → vectors → wiki and their orchestration."""
