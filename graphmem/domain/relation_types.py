"""The relation types a graph edge can have, in a module that imports nothing heavy: the CLI's
help text needs them, and importing the stores package for them would load numpy on `--help`.
One list: the MCP tools' argument type is the Literal, the stores' check is its tuple."""

from __future__ import annotations

from typing import Literal, get_args

RelationName = Literal[
    "causal",
    "temporal",
    "related",
    "mentions",
    "merged_from",
    "explicit",
    "superseded_by",
    "contradicts",
]
RELATION_TYPES: tuple[str, ...] = get_args(RelationName)
