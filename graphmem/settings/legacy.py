"""The root's flat names, from before the settings had sections, kept working in code.

The environment needs nothing here: each section reads the variables the root read, as its
names or as aliases (graphmem.settings.stores, .search, .lifecycle). In code,
`Settings(expand_hops=3)`, `settings.expand_hops` and
`settings.model_copy(update={"expand_hops": 3})` still reach `settings.graph.expand_hops`, with
a DeprecationWarning, as the LLM section's old names do.
A flat name is derived from where its section reads it: the old variable a field kept as its
last alias (GRAPHMEM_EXPAND_HOPS -> expand_hops), else the section's prefix and the field's
name (GRAPHMEM_GRAPH_ + fanout -> graph_fanout).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from pydantic import AliasChoices
from pydantic_settings import BaseSettings

ENV_PREFIX = "GRAPHMEM_"


def flat_names(sections: Mapping[str, type[BaseSettings]]) -> dict[str, tuple[str, str]]:
    """Each flat name of the root -> (its section, its field there)."""
    out: dict[str, tuple[str, str]] = {}
    for section, cls in sections.items():
        prefix = str(cls.model_config.get("env_prefix", "")).removeprefix(ENV_PREFIX).lower()
        for name, field in cls.model_fields.items():
            alias = field.validation_alias
            old = alias.choices[-1] if isinstance(alias, AliasChoices) else alias
            flat = old.removeprefix(ENV_PREFIX).lower() if isinstance(old, str) else ""
            out[flat or prefix + name] = (section, name)
    return out


def by_section(
    values: dict[str, Any], flat: Mapping[str, tuple[str, str]], how: str
) -> dict[str, dict[str, Any]]:
    """Take the flat names out of `values`, grouped by section ({section: {field: value}}),
    with one DeprecationWarning naming them and their new places (`how` says where they
    were used)."""
    found = [name for name in values if name in flat]
    grouped: dict[str, dict[str, Any]] = {}
    for name in found:
        section, field = flat[name]
        grouped.setdefault(section, {})[field] = values.pop(name)
    if found:
        moved = ", ".join(f"{n} -> {'.'.join(flat[n])}" for n in found)
        warnings.warn(
            f"{how} with the settings' flat names is deprecated: {moved}",
            DeprecationWarning,
            stacklevel=3,
        )
    return grouped


__all__ = ["by_section", "flat_names"]
