"""The answer half of the request path: slot filling, context packing, generation and grounding."""
