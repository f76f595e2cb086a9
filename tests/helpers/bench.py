"""Sample memories for the store-building benchmarks' tests."""

from __future__ import annotations

TEXTS = [
    "Alice moved to Lisbon in March and works at the old harbour museum",
    "Alice's sister Carmen visits her in Lisbon every summer",
    "Bob bought a red bicycle at the farmers market in Osaka",
    "Bob rides the red bicycle to the climbing gym on Fridays",
    "Carmen adopted a rescue dog named Pepper from the animal shelter",
    "Alice prefers green tea over coffee since she moved to Lisbon",
    "Bob's guitar lessons with Hiro started in September",
    "Pepper the rescue dog loves the riverside trail near Carmen's flat",
]
