"""The phrase rules of injection screening, as data: (id, category, weight, regex).

They read the canonical text (lower case, NFKC, homoglyphs folded; see canonical.py). Weights are
the evidence one match carries; injection.py combines them with a noisy-OR, so a weight of 0.7 or
more quarantines on its own at the default threshold and weaker cues need company. Each rule names
one shape of instruction aimed at the agent; concepts.py holds the broader co-occurrence layer.

Kept apart from the engine so the tables can be read, reviewed and extended without touching
code, and so formatters leave their one-rule-per-entry layout alone.
"""

from __future__ import annotations

from graphmem.guard.rules.en import COMPACT, EN
from graphmem.guard.rules.zh import ZH

__all__ = ["COMPACT", "EN", "ZH"]
