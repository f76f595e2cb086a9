"""The filter arguments memory_search and memory_list share, published with a typed schema so
a client shows the model exactly what it may send; the service checks the values
(graphmem.domain.filters), and its errors name the field like every other tool error.

A metadata filter matches top-level keys of a memory's metadata: `{"project": "Atlas"}` is
equality, `{"tier": {"in": ["gold", "silver"]}}` membership, `{"k": {"eq": v}}` the same as
the plain form; several keys must all match. Values are JSON scalars.
"""

from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from graphmem.domain.filters import MAX_IN_VALUES, MAX_KEY_CHARS, MAX_METADATA_KEYS, MAX_VALUE_CHARS
from graphmem.domain.model import Source, Status

SCOPE_MAX = 128
SCALAR_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "maxLength": MAX_VALUE_CHARS},
        {"type": "number"},
        {"type": "boolean"},
    ]
}


def _one_or_many(names: tuple[str, ...], description: str) -> dict[str, Any]:
    one = {"type": "string", "enum": list(names)}
    return {
        "anyOf": [one, {"type": "array", "items": one, "minItems": 1}, {"type": "null"}],
        "default": None,
        "description": description,
    }


def _metadata_schema(description: str) -> dict[str, Any]:
    condition = {
        "anyOf": [
            SCALAR_SCHEMA,
            {
                "type": "object",
                "properties": {
                    "in": {
                        "type": "array",
                        "items": SCALAR_SCHEMA,
                        "minItems": 1,
                        "maxItems": MAX_IN_VALUES,
                    }
                },
                "required": ["in"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {"eq": SCALAR_SCHEMA},
                "required": ["eq"],
                "additionalProperties": False,
            },
        ]
    }
    return {
        "anyOf": [
            {
                "type": "object",
                "propertyNames": {"minLength": 1, "maxLength": MAX_KEY_CHARS},
                "additionalProperties": condition,
                "maxProperties": MAX_METADATA_KEYS,
            },
            {"type": "null"},
        ],
        "default": None,
        "description": description,
    }


# The schemas are published typed, so a client shows the model exactly what it may send; the
# values are checked by the service (graphmem.domain.filters), whose errors say in one line what is
# wrong (`metadata.tier: an operator object has exactly one of eq, in`), where pydantic would
# list one failure per member of the union.
MetadataFilter = Annotated[
    dict[str, Any] | None,
    WithJsonSchema(
        _metadata_schema(
            "Only memories whose metadata matches, by top-level key:"
            ' {"project": "Atlas"} (equals), {"tier": {"in": ["gold", "silver"]}} (one of),'
            ' {"k": {"eq": 3}} (equals, explicit). Values are strings, numbers or booleans;'
            " several keys must all match."
        )
    ),
]
SortName = Literal["newest", "oldest", "most_accessed", "decay"]
Statuses = Annotated[
    str | list[str] | None,
    WithJsonSchema(
        _one_or_many(
            tuple(s.value for s in Status),
            "Only memories in this status, or any of these (default: active). quarantined"
            " needs an operator token.",
        )
    ),
]
Sources = Annotated[
    str | list[str] | None,
    WithJsonSchema(
        _one_or_many(
            tuple(s.value for s in Source),
            "Only memories from this source, or from any of these.",
        )
    ),
]
SessionId = Annotated[
    str | None,
    Field(min_length=1, max_length=SCOPE_MAX, description="Only memories of this conversation."),
]
AgentId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=SCOPE_MAX,
        description="Only this agent's memories (default: every memory of the user).",
    ),
]
RunId = Annotated[
    str | None,
    Field(min_length=1, max_length=SCOPE_MAX, description="Only memories of this run."),
]
MinConfidence = Annotated[
    float | None,
    Field(ge=0, le=1, description="Only memories at least this confident, 0-1."),
]


__all__ = [
    "AgentId",
    "MetadataFilter",
    "MinConfidence",
    "RunId",
    "Sources",
    "SessionId",
    "SortName",
    "Statuses",
]
