"""What the memory tools return, as pydantic models: FastMCP publishes each tool's return
model as its `outputSchema`, so a client knows the shape of a result before it calls, and a
client that validates (the TypeScript SDK does) holds the server to it.

The JSON is what the tools returned as plain dicts before they were typed: same keys, same
values. A key that is always sent is required in the schema (nullable where it can be null); a
key that is only sent in some cases (`merged_into`, `path`, `llm_error`, ...) is optional and
left out, never sent as null, when it does not apply.
"""

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from graphmem.mcp.tools.common import MemoryTypeName, RelationName, SourceName

T = TypeVar("T")

StatusName = Literal["active", "archived", "superseded", "quarantined"]


def _absent(value: object) -> bool:
    return value is None


# A key sent only when it applies: optional in the schema (give it the default None), left
# out of the JSON when None.
Sometimes = Annotated[T | None, Field(exclude_if=_absent)]


def _never_null(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """In the schema, a `Sometimes` key is its type without null and without a default: it is
    left out rather than sent as null, and a client should be told exactly that."""
    for name, field in cls.model_fields.items():
        prop = schema.get("properties", {}).get(field.serialization_alias or name)
        if field.exclude_if is not _absent or prop is None:
            continue
        alts = [a for a in prop.pop("anyOf", []) if a != {"type": "null"}]
        if len(alts) == 1:
            prop.update(alts[0])
        elif alts:
            prop["anyOf"] = alts
        prop.pop("default", None)


class Result(BaseModel):
    """Every result model: built by the tools from their own data, never from a client."""

    model_config = ConfigDict(
        serialize_by_alias=True, validate_by_name=True, json_schema_extra=_never_null
    )


class MemoryRecord(Result):
    """One long-term memory with its full provenance, as the tools show it (the user is the
    caller, so not repeated)."""

    memory_id: str = Field(description="The memory's id (for get, update, forget, history).")
    content: str = Field(description="The memory's text.")
    summary: str = Field(description="A short summary of the content.")
    memory_type: MemoryTypeName = Field(description="fact, preference, event or task.")
    source: SourceName = Field(description="Who it came from.")
    session_id: str | None = Field(description="The conversation it came from, if tracked.")
    agent_id: str | None = Field(description="The agent it belongs to, if any.")
    run_id: str | None = Field(description="The run (one task or conversation) it belongs to.")
    confidence: float = Field(description="How sure the writer was, 0-1.")
    metadata: dict[str, Any] = Field(description="The JSON object stored with it.")
    access_count: int = Field(description="How often it was recalled.")
    last_access_at: str | None = Field(description="ISO-8601: when it was last recalled.")
    decay_score: float = Field(description="Strength after decay, 0-1; weak ones are archived.")
    status: StatusName = Field(
        description="active, archived, superseded or quarantined (held for review)."
    )
    expires_at: str | None = Field(description="ISO-8601: when it will be deleted, if ever.")
    created_at: str = Field(description="ISO-8601: when it was written.")
    updated_at: str = Field(description="ISO-8601: when it last changed.")
    valid_from: str | None = Field(description="ISO-8601: since when it holds.")
    valid_to: str | None = Field(description="ISO-8601: until when it held; null while it holds.")
    slot: str | None = Field(description="The versioned slot it fills (e.g. the user's city).")
    merged_into: Sometimes[str] = Field(
        None, description="Set when a true duplicate was merged into this memory."
    )


class MemoryVersion(MemoryRecord):
    """A version in a memory's history, with whether it still holds."""

    valid_from: str = Field(description="ISO-8601: since when it held.")
    current: bool = Field(description="True while it still holds (not superseded, no valid_to).")


class PathStep(Result):
    """One relation followed from a direct hit to the hit it led to."""

    source: str = Field(alias="from", description="The memory the step starts at.")
    type: str = Field(description="The relation type.")
    to: str = Field(description="The memory it reaches.")
    strength: float = Field(description="The relation's weight, 0-1.")


class DocumentSource(Result):
    """Where a document chunk comes from."""

    source: str = Field(description="The file, URL or name the document was ingested from.")
    title: str = Field(description="The document's title.")
    headings: list[str] = Field(description="The headings the chunk sits under.")
    start: int = Field(description="Character offset of the chunk in the document's text.")
    end: int = Field(description="Character offset of its end.")


class ImageInfo(Result):
    """What an image memory holds besides its text: where to read the image, and its size."""

    resource: str = Field(description="image://{memory_id}: the image itself, for its owner.")
    thumbnail: str = Field(description="image://{memory_id}/thumbnail: a small PNG of it.")
    format: str = Field(description="png, jpeg, webp or gif (its first frame was read).")
    width: int = Field(description="Pixels.")
    height: int = Field(description="Pixels.")
    taken_at: Sometimes[str] = Field(
        None, description="ISO-8601, from the image's EXIF: when it was taken."
    )
    pdf_page: Sometimes[int] = Field(
        None, description="When a PDF was written: the page (1-based) this image is."
    )


class ChannelPair(Result):
    """The two matching channels' values for one hit."""

    vector: float = Field(description="The vector channel (embedding similarity).")
    keyword: float = Field(description="The keyword channel (BM25).")
    across: Sometimes[float] = Field(
        None,
        description="With learned fusion: BM25 on the English words a Chinese question"
        " translates to, which find memories written in English.",
    )


class ChannelRanks(Result):
    """Where the hit ranked in each channel among this query's candidates (0 = best)."""

    vector: int | None = Field(description="Its rank by embedding similarity; null: no match.")
    keyword: int | None = Field(description="Its rank by BM25; null: no keyword match.")
    across: Sometimes[int] = Field(
        None, description="Its rank by BM25 on a Chinese question's English words."
    )


class WalkSeed(Result):
    """The direct hit the graph walk started from."""

    memory_id: str = Field(description="The seed memory.")
    relevance: float = Field(
        description="What the seed passes on, 0-1: (its score / the best seed's) ** sharpness."
    )
    channels: list[Literal["vector", "keyword"]] = Field(
        description="The channels that found the seed."
    )


class WalkStep(Result):
    """One hop of the walk and why it was taken."""

    hop: int = Field(description="1 for the hop from the seed, 2 for the next, ...")
    source: str = Field(alias="from", description="The memory the hop starts at.")
    to: str = Field(description="The memory it reaches.")
    type: str = Field(description="The relation type followed.")
    direction: Literal["forward", "backward"] = Field(
        description="forward: along the relation (e.g. to the next turn); backward: against it."
    )
    strength: float = Field(description="The relation's strength, 0-1.")
    carried: float = Field(description="What the hop multiplies the path's score by.")
    why: str = Field(description="Why the hop carries that much.")


class Walk(Result):
    """How the memory graph reached a hit."""

    seed: WalkSeed = Field(description="Where the walk started.")
    steps: list[WalkStep] = Field(description="The hops, seed first.")
    graph: float = Field(description="The path's score, 0-1 (the graph channel).")
    added: float = Field(description="What the path added to the hit's final score.")


class Explanation(Result):
    """How a hit's score was made (memory_search with explain=true)."""

    fusion: str = Field(
        description="learned:<how it was fitted> (the default: channels calibrated and fused"
        " with the weights fitted for this embedder and language) or weights (explicit"
        " weights or a profile: a weighted sum, keyword over the larger of the best hit and a"
        " share of what the query could score, the vector weight scaled down on a query in a"
        " language the embedding model was not trained on)."
    )
    language: Sometimes[Literal["en", "zh"]] = Field(
        None,
        description="The query's language: with learned fusion, whose fitted weights were"
        " used; with weights, whether the vector weight was scaled down for it.",
    )
    raw: ChannelPair = Field(description="Before calibration: cosine similarity and BM25.")
    calibrated: ChannelPair = Field(description="After calibration, 0-1 each.")
    ranks: Sometimes[ChannelRanks] = Field(None, description="With learned fusion.")
    features: Sometimes[dict[str, float]] = Field(
        None, description="With learned fusion: the features the fitted weights apply to."
    )
    contributions: dict[str, float] = Field(
        description="Each feature's or channel's share of the score (weight x value), before"
        " trust, confidence and the graph."
    )
    walk: Sometimes[Walk] = Field(None, description="For a hit the memory graph reached.")


class SearchHit(Result):
    """A recalled memory, why it ranked there, when it held and where it came from."""

    memory_id: str = Field(description="The memory's id (for get, update, forget, history).")
    content: str = Field(description="The memory's text.")
    summary: str = Field(description="A short summary of the content.")
    memory_type: MemoryTypeName = Field(description="fact, preference, event or task.")
    kind: Literal["memory", "document", "image"] = Field(
        description="memory (what was said or written as a memory), document (a chunk of an"
        " ingested document or wiki page) or image (an image's caption and the text read in"
        " it)."
    )
    document: Sometimes[DocumentSource] = Field(
        None, description="For a document chunk: its source, title, headings and offsets."
    )
    image: Sometimes[ImageInfo] = Field(
        None, description="For an image: its resource, thumbnail, format and size."
    )
    library: Sometimes[str] = Field(
        None, description="For a chunk of a shared library's document: the library."
    )
    score: float = Field(description="The final score, 0-1, best first.")
    scores: dict[str, float] = Field(
        description="Why it ranked there: the channels vector (embedding similarity),"
        " keyword (BM25), recency and frequency, 0-1 each; graph for a hit reached through"
        " the memory graph; and the factors applied when they are not 1 (trust of its"
        " source, confidence, and history or slot boosts for questions about the past)."
    )
    created_at: str = Field(description="ISO-8601: when it was written.")
    source: SourceName = Field(description="Who it came from.")
    confidence: float = Field(description="How sure the writer was, 0-1.")
    valid_from: str = Field(description="ISO-8601: since when it holds.")
    valid_to: str | None = Field(description="ISO-8601: until when it held; null while it holds.")
    current: bool = Field(description="True while it still holds (not superseded, no valid_to).")
    session_id: Sometimes[str] = Field(None, description="The conversation it came from.")
    agent_id: Sometimes[str] = Field(None, description="The agent it belongs to.")
    run_id: Sometimes[str] = Field(None, description="The run it belongs to.")
    metadata: Sometimes[dict[str, Any]] = Field(None, description="Sent when it is not empty.")
    path: Sometimes[list[PathStep]] = Field(
        None,
        description="For a hit reached through the memory graph: the relations that led to it.",
    )
    explain: Sometimes[Explanation] = Field(
        None, description="With explain=true: how the score was made and why each hop was taken."
    )


class SearchResult(Result):
    hits: list[SearchHit] = Field(description="Best first.")
    count: int = Field(description="How many hits.")
    took_ms: float = Field(description="Time the search took in the service.")
    degraded: list[str] = Field(
        description="Channels that failed and were left out of this search (e.g. vectors)."
    )


class GetResult(Result):
    memories: list[MemoryRecord] = Field(description="The memories found, in the order asked.")
    missing: list[str] = Field(description="Ids that do not exist for this user.")
    quarantined: list[str] = Field(
        description="Ids held in quarantine pending review; their content is withheld."
    )
    count: int = Field(description="How many memories were found.")


class RevealedSecret(Result):
    ref: str = Field(description="The reference the memory holds, e.g. [secret:password#1].")
    type: str = Field(description="What kind of secret: password, api_key, passport, ...")
    value: str = Field(description="The secret, in clear.")


class RevealResult(Result):
    memory_id: str = Field(description="The memory whose secrets these are.")
    secrets: list[RevealedSecret] = Field(description="Each vaulted secret asked for.")


class ListResult(Result):
    memories: list[MemoryRecord] = Field(description="One page, in the order asked for.")
    next_cursor: str | None = Field(
        description="Pass it as cursor for the next page; null on the last page."
    )
    count: int = Field(description="How many memories on this page.")


class WriteResult(Result):
    memory_id: str = Field(description="The memory written, or the one it was merged into.")
    memory_type: MemoryTypeName = Field(description="fact, preference, event or task.")
    summary: str = Field(description="A short summary of the content, as stored.")
    created_at: str = Field(description="ISO-8601: when it was written.")
    status: StatusName = Field(
        description="active, or quarantined: held for an operator's review, not recalled"
        " until approved."
    )
    merged_into: Sometimes[str] = Field(
        None, description="Set when it said the same as a stored memory and was merged into it."
    )
    reason: Sometimes[str] = Field(
        None,
        description="Set when quarantined: 'held for review: ' and the firewall's rules or"
        " classifier evidence with the excerpt that triggered them.",
    )


class ImagePage(Result):
    """One page of a PDF written whole: its image memory."""

    page: int = Field(description="The page, 1 = the first.")
    memory_id: str = Field(description="Its image memory.")
    status: StatusName = Field(description="active, or quarantined: held for review.")
    ocr: Literal["read", "empty", "off", "unavailable", "failed", "skipped"] = Field(
        description="As `ocr` above, for this page."
    )
    reason: Sometimes[str] = Field(None, description="Set when quarantined, as `reason` above.")


class ImageWriteResult(WriteResult):
    """A written image: the memory, what was read in it and where to read it back."""

    kind: Literal["image"] = Field(description="Always image.")
    image: ImageInfo = Field(description="Its resource, thumbnail, format and size.")
    text: str = Field(
        description="The memory's content as stored: the caption, then the text OCR read in"
        " the image (masked by the firewall like any memory)."
    )
    ocr: Literal["read", "empty", "off", "unavailable", "failed", "skipped"] = Field(
        description="read: text was found; empty: none was; off: OCR is switched off;"
        " unavailable: no Tesseract on the server; failed: it stopped with an error or timeout;"
        " skipped: a PDF page's text layer gave the text."
    )
    pages: Sometimes[list[ImagePage]] = Field(
        None,
        description="Set for a PDF of several pages written whole (no `page`): every page's"
        " image memory, in page order; the fields above are the first page's.",
    )


class UpdateResult(Result):
    """Either the change (updated=true, with the new content) or, when the firewall held the
    new content for review, the pending version (updated=false, status, pending_id, reason)."""

    memory_id: str = Field(description="The memory changed (the same id as before).")
    updated: bool = Field(description="False when the new content is held for review.")
    content: Sometimes[str] = Field(None, description="The new content.")
    summary: Sometimes[str] = Field(None, description="The new summary.")
    updated_at: Sometimes[str] = Field(None, description="ISO-8601: when it changed.")
    status: Sometimes[StatusName] = Field(None, description="quarantined: held for review.")
    pending_id: Sometimes[str] = Field(None, description="The held version, for the operator.")
    reason: Sometimes[str] = Field(None, description="Why nothing changed yet.")


class ForgottenMemory(Result):
    memory_id: str = Field(description="The memory's id (for get, update, forget, history).")
    content: str = Field(description="The memory's text.")
    memory_type: MemoryTypeName = Field(description="fact, preference, event or task.")


class ForgetResult(Result):
    """`deleted` after a deletion, `would_delete` after a dry run."""

    deleted: Sometimes[list[ForgottenMemory]] = Field(None, description="What was deleted.")
    would_delete: Sometimes[list[ForgottenMemory]] = Field(
        None, description="What a call without dry_run would delete."
    )
    count: int
    dry_run: bool


class Decision(Result):
    """What memory_observe did with one turn, and why."""

    turn: int = Field(description="The turn's index in the call, from 0.")
    action: Literal["write", "forget", "skip"]
    reason: str
    memory_type: MemoryTypeName | None
    summary: str | None
    entities: list[str]
    memory_ids: list[str] = Field(description="The memories written or deleted.")


class ObserveResult(Result):
    decisions: list[Decision] = Field(description="One per turn, in order.")
    dry_run: bool


class SummaryResult(Result):
    memory_ids: list[str] = Field(description="The memories summarised.")
    missing: list[str] = Field(description="Ids that do not exist for this user.")
    quarantined: Sometimes[list[str]] = Field(
        None, description="Ids held in quarantine pending review; their content is withheld."
    )
    summary: str = Field(description="A short summary of the content.")
    method: Literal["llm", "extractive"]
    llm_error: Sometimes[str] = Field(None, description="Why the LLM summary failed, if it did.")


class RelateResult(Result):
    source_id: str
    target_id: str
    relation_type: RelationName
    strength: float = Field(description="The relation's weight, 0-1.")


class HistoryResult(Result):
    memory_id: str = Field(description="The memory's id (for get, update, forget, history).")
    versions: list[MemoryVersion] = Field(description="Oldest first.")
    count: int


class GraphNode(Result):
    id: str = Field(description="The memory id.")
    content: str = Field(description="The memory's text.")
    memory_type: MemoryTypeName = Field(description="fact, preference, event or task.")
    entities: list[str] = Field(description="The entities it mentions.")


class GraphEdge(Result):
    source: str = Field(alias="from")
    type: str = Field(description="The relation type.")
    to: str
    strength: float = Field(description="The relation's weight, 0-1.")
    valid_from: Sometimes[str] = Field(None, description="Sent for an edge that no longer holds.")
    valid_to: Sometimes[str] = Field(None, description="Sent for an edge that no longer holds.")


class GraphResult(Result):
    memory_id: str = Field(description="The memory's id (for get, update, forget, history).")
    hops: int
    nodes: list[GraphNode]
    edges: list[GraphEdge]


__all__ = [
    "Decision",
    "ForgetResult",
    "ForgottenMemory",
    "GetResult",
    "GraphEdge",
    "GraphNode",
    "GraphResult",
    "HistoryResult",
    "ListResult",
    "MemoryRecord",
    "MemoryTypeName",
    "MemoryVersion",
    "ObserveResult",
    "PathStep",
    "RelateResult",
    "Result",
    "SearchHit",
    "SearchResult",
    "Sometimes",
    "SourceName",
    "StatusName",
    "SummaryResult",
    "UpdateResult",
    "WriteResult",
    "ImageInfo",
    "ImageWriteResult",
]
