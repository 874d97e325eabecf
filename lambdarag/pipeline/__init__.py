"""The request path: answer, answer_stream and search, their result types and the trace."""
