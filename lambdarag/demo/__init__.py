"""The bundled demo domain: a fictional university finance office's documents and questions."""
