"""Infrastructure every layer may use, and that knows nothing of memories: logging, metrics,
traces, the worker pools, the optional extras, the one LLM call, the redaction of personal
values in what leaves the process, and the running server's card in the data directory.

Importing the package loads nothing (the CLI's cold start imports pieces of it)."""
