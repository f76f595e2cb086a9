"""Deterministic synthetic memories and questions for the scale benchmark.

Sentences read like what an agent would store about a user (who did what, where, when, how they
felt), 10-35 words, built from templates and word lists with a seeded RNG. Every generated memory
and query is distinct, so no embedding is computed twice for the same text.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

NAMES = """Alice Bob Carmen Dmitri Elena Farid Grace Hiro Ines Jamal Keiko Liam Maya Nikolai Olga
Pedro Quinn Rosa Samir Tessa Umar Vera Wen Ximena Yusuf Zara Aaron Bianca Caleb Daria Emeka Fiona
Gustavo Hana Ivan Julia Kofi Lena Mateo Nadia Oscar Priya Rafael Sofia Tomas Uma Victor Wanda
Xavier Yara Zane Amara Bruno Chloe Diego Esther Felix Gita Hugo Isla""".split()


def _items(text: str) -> list[str]:
    return [" ".join(x.split()) for x in text.split(",") if x.strip()]


OBJECTS = _items(
    """a vintage camera, a red bicycle, a sourdough starter, a new laptop, a pair of running shoes,
    a guitar, a sketchbook, an old map, a ceramic vase, a telescope, a tent, a blue scarf,
    a cookbook, a houseplant, a board game, a drone, a record player, a fountain pen, a kayak,
    a wool sweater, a set of paints, a jigsaw puzzle, a coffee grinder, a smartwatch,
    a leather journal, a rescue dog, a kitten, a bonsai tree, a sewing machine, a mountain bike"""
)
PLACES = _items(
    """the farmers market, the library, the community center, the beach, the old harbour,
    the museum, the climbing gym, the city park, the train station, the bakery on Main Street,
    the lake house, the conference centre, the hospital, the university campus, the airport,
    the botanical garden, the night market, the ski resort, the vineyard, the bookshop,
    the animal shelter, the art studio, the concert hall, the coworking space,
    the riverside trail"""
)
CITIES = """Lisbon Osaka Nairobi Montreal Prague Lima Hanoi Oslo Marrakesh Austin Tbilisi Cork
Seville Busan Valparaiso Krakow Adelaide Bergen Cusco Porto Kyoto Accra Ghent Quito Tallinn
Wellington Bologna Tucson Halifax Izmir""".split()
TIME_PHRASES = _items(
    """last Monday, on Tuesday morning, over the weekend, yesterday evening, two weeks ago,
    last summer, in early March, after work, before the holidays, last night, this morning,
    in the spring, during the long weekend, a month ago, on Friday afternoon, in late October,
    at New Year, three days ago, over the winter break, on a rainy Sunday"""
)
FEELINGS = """excited nervous proud relieved exhausted grateful frustrated calm curious
overwhelmed hopeful nostalgic delighted anxious inspired content restless amused""".split()
FOODS = _items(
    """ramen, tacos, sushi, lasagna, pho, curry, falafel, dumplings, paella, risotto, shakshuka,
    pierogi, bibimbap, ceviche, gnocchi, biryani, empanadas, poke, pad thai, moussaka"""
)
TOPICS = _items(
    """a job interview, the new apartment, a marathon plan, a family reunion, learning Spanish,
    a startup idea, the garden project, a charity run, moving abroad, a wedding toast,
    a podcast, a book club, a career change, a sleep routine, a budget spreadsheet,
    a science fair, an art exhibition, a medical checkup, a road trip, a piano recital"""
)
PEOPLE = _items(
    """her sister, his brother, their neighbour, an old friend, a colleague, her mother,
    his father, the kids, a mentor, her roommate, his partner, a cousin, the whole team"""
)
ACTIVITIES = _items(
    """hiking, swimming, painting, pottery, baking, rock climbing, chess, cycling, yoga, running,
    gardening, photography, knitting, sailing, surfing, archery, fencing, salsa dancing,
    woodworking, birdwatching, kayaking, skiing, snowboarding, calligraphy, origami,
    beekeeping, fishing, camping, volunteering, journaling, meditation, tennis, badminton,
    bouldering, composting, stargazing"""
)

_MEMORY_TEMPLATES = [
    "{n}: I went {act} with {p} {t} and felt really {f} afterwards.",
    "{n} said they bought {o} at {pl} {t} for about {num} dollars.",
    "{n}: We finally tried the {food} place near {pl} {t}; {p} loved it.",
    "{n} is planning a trip to {c} with {p} to go {act} for {num} days.",
    "{n}: I've been practising {act} every morning for {num} weeks and I'm {f} about it.",
    "{n} mentioned {top} and that {p} helped a lot {t}.",
    "{n}: Just got back from {c}! The {food} there was amazing and I found {o}.",
    "{n} told me that {p} gave them {o} as a gift {t}.",
    "{n}: Feeling {f} because {top} is finally moving forward after {num} months.",
    "{n} signed up for a {act} class at {pl}; the first session is {t}.",
    "{n}: Met {p} at {pl} {t} and we talked about {top} for hours.",
    "{n} prefers {food} over {food2} and always orders it when visiting {c}.",
    "{n}: I lost {o} somewhere around {pl} {t}, which was really {f2}.",
    "{n} volunteers at {pl} on weekends and has done it for {num} years.",
    "{n}: My goal this year is {act} at least {num} times a month and cooking more {food}.",
    "{n} recommended a book about {act} to {p} {t}.",
]
# Optional follow-up sentences, so lengths spread like chat turns (LoCoMo averages ~24 words).
_TAILS = [
    " It reminded them of {top}, and they want to tell {p} about it.",
    " They are thinking about doing it again {t}, maybe in {c}.",
    " Afterwards they had {food} and talked about {act} until late.",
    " Honestly it made them feel {f}, more than they expected.",
    " {n} says it cost around {num} dollars but was completely worth it.",
    " The plan is to bring {o} next time and invite {p} as well.",
]
_QUERY_TEMPLATES = [
    "What did {n} buy at {pl}?",
    "When did {n} go {act} with {p}?",
    "Where is {n} planning to travel for {act}?",
    "How did {n} feel about {top}?",
    "Which food does {n} prefer in {c}?",
    "What gift did {n} get from {p}?",
    "Has {n} ever been to {c}?",
    "What class did {n} sign up for at {pl}?",
    "What does {n} do at {pl} on weekends?",
    "Who did {n} meet at {pl} {t}?",
    "What did {n} lose near {pl}?",
    "How long has {n} been practising {act}?",
    "What is {n}'s goal for {act} this year?",
    "What book did {n} recommend to {p}?",
]


def _fill(template: str, r: random.Random) -> str:
    food, food2 = r.sample(FOODS, 2)
    f, f2 = r.sample(FEELINGS, 2)
    return template.format(
        n=r.choice(NAMES),
        act=r.choice(ACTIVITIES),
        p=r.choice(PEOPLE),
        t=r.choice(TIME_PHRASES),
        f=f,
        f2=f2,
        o=r.choice(OBJECTS),
        pl=r.choice(PLACES),
        num=r.randint(2, 60),
        food=food,
        food2=food2,
        c=r.choice(CITIES),
        top=r.choice(TOPICS),
    )


def _distinct(
    templates: list[str], seed: int, seen: set[str], tails: bool = False
) -> Iterator[str]:
    r = random.Random(seed)
    while True:
        text = _fill(r.choice(templates), r)
        if tails:
            for _ in range(r.choice((0, 0, 1, 1, 2))):
                text += _fill(r.choice(_TAILS), r)
        if text in seen:
            continue
        seen.add(text)
        yield text


class Generator:
    """Distinct memory texts and distinct query texts (the two never collide)."""

    def __init__(self, seed: int = 7) -> None:
        self._seen: set[str] = set()
        self._memories = _distinct(_MEMORY_TEMPLATES, seed, self._seen, tails=True)
        self._queries = _distinct(_QUERY_TEMPLATES, seed + 1, self._seen)

    def memories(self, n: int) -> list[str]:
        return [next(self._memories) for _ in range(n)]

    def queries(self, n: int) -> list[str]:
        return [next(self._queries) for _ in range(n)]
