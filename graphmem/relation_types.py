"""The relation types a graph edge can have, in a module that imports nothing: the CLI's help
text needs them, and importing the stores package for them would load numpy on `--help`."""

from __future__ import annotations

RELATION_TYPES = (
    "causal",
    "temporal",
    "related",
    "mentions",
    "merged_from",
    "explicit",
    "superseded_by",
    "contradicts",
)
