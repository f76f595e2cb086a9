"""Entity and relation extraction (spaCy, rules for Chinese and causal/temporal cues).

Populated by the graph-memory work; the package exists so the layout matches the design and
imports of `extractors` resolve.
"""
