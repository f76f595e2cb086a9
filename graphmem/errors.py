"""Errors every interface can turn into a one-line message.

Each error names the field that was wrong so a CLI, an MCP tool or an HTTP caller can tell the
user exactly what to fix without showing a stack trace.
"""

from __future__ import annotations


def _redact(text: str) -> str:
    from graphmem.infra.redaction import redact  # lazy: the recognisers import more than errors may

    return redact(text)


class GraphmemError(Exception):
    """Base class: anything graphmem raises on purpose.

    Its text reaches users, logs and error trackers, and it often quotes the input it refuses
    (a value, a query, a firewall excerpt); so every message is redacted here, once, for every
    subclass: emails, phone numbers, names and secrets become their type (graphmem.infra.redaction).
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(_redact(a) if isinstance(a, str) else a for a in args))


class InvalidInputError(GraphmemError):
    """Bad input. Raised before anything is written, so a failed call never leaves a half-write.

    Not called ValidationError: the settings and the MCP layer also meet pydantic's, and one name
    for two unrelated errors made every `except` ambiguous."""

    def __init__(self, field: str, message: str) -> None:
        message = _redact(message)
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


REASONS_SHOWN = 3


def explain(reasons: list[str] | tuple[str, ...] | str) -> str:
    """The firewall's reasons as one line for the user: the rules that fired first (a rule's
    reason names it and quotes the span it matched, which is what the user can change), then
    the classifier's evidence and obfuscation signals, at most REASONS_SHOWN of them, redacted.
    """
    if isinstance(reasons, str):
        return _redact(reasons)
    ranked = sorted(reasons, key=lambda r: r.startswith(("learned:", "obfuscation:")))
    return _redact("; ".join(ranked[:REASONS_SHOWN])) or "refused by the memory firewall"


class FirewallRejected(InvalidInputError):
    """The memory firewall refused a write or an update: nothing was stored. `reason` is the
    decision's reasons (or one line already made of them)."""

    def __init__(self, field: str, reason: list[str] | tuple[str, ...] | str) -> None:
        reason = explain(reason)
        super().__init__(field, f"rejected by the memory firewall: {reason}")
        self.reason = reason


class NotFoundError(GraphmemError):
    """The memory does not exist for this user (another user's memory looks exactly the same)."""

    def __init__(self, memory_id: str) -> None:
        super().__init__(f"memory_id: no memory {memory_id!r} for this user")
        self.field = "memory_id"
        self.memory_id = memory_id


class DocumentNotFoundError(NotFoundError):
    """No document was ingested from that source for this user (or library)."""

    def __init__(self, source: str) -> None:
        GraphmemError.__init__(self, f"source: no document ingested from {source[:200]!r}")
        self.field = "source"
        self.memory_id = ""
        self.source = source


class StoreUnavailableError(GraphmemError):
    """A store could not be reached. Records failures abort the call; projection failures don't."""


class StoreInUseError(StoreUnavailableError):
    """Another process holds the embedded store in `data_dir`; nothing is wrong with the store.

    Qdrant Edge locks its write-ahead log for the process that opened it, so a second process
    cannot open it while, say, `graphmem serve` runs. Telling this apart from a broken store
    lets the CLI ask that server instead, or name it (graphmem.cli.remote)."""

    def __init__(self, data_dir: object) -> None:
        super().__init__(f"the store in {data_dir} is in use by another graphmem process")
        self.data_dir = data_dir


class BusyError(GraphmemError):
    """Another write for the same user held its lock past the timeout; nothing was written.

    Writes for one user are serialised (across server replicas too) so that two of them never
    plan against the same old state; a caller that sees this can simply try again."""

    def __init__(self, name: str, timeout: float) -> None:
        if name.startswith("user:"):
            text = (
                f"another write for this user is still in progress after {timeout:g} s;"
                " nothing was written, try again"
            )
        else:
            text = f"another graphmem process is running the {name}; try again when it is done"
        super().__init__(text)
        self.timeout = timeout


class ImageError(InvalidInputError):
    """An image was refused (too many bytes or pixels, a decompression bomb, not an image of
    an accepted format); nothing was stored. Its field is `image`."""

    def __init__(self, message: str) -> None:
        super().__init__("image", message)
