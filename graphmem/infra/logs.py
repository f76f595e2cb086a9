"""Logging setup: text for people, one JSON object per line for log pipelines, and a request id
on every record logged while serving a call.

The request id lives in a context variable. The MCP middleware sets it for each tool call (from
the caller's `X-Request-Id` header when it sends a usable one, else a fresh id), and anyio
copies context into the worker threads that run the service, so a warning deep in a store
adapter carries the id of the call that caused it. Settings: `GRAPHMEM_LOG_LEVEL` (WARNING)
and `GRAPHMEM_LOG_FORMAT` (`text` or `json`).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from graphmem.settings import environment

request_id_var: ContextVar[str | None] = ContextVar("graphmem_request_id", default=None)

REQUEST_ID_HEADER = "x-request-id"
_USABLE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# Attributes every LogRecord has; anything else on a record came from `extra=` and is data.
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request_id"}
FORMATS = ("text", "json")


def new_request_id(incoming: str | None = None) -> str:
    """The caller's id when it is short and plain (it ends up in logs), else a fresh one."""
    if incoming and _USABLE_ID.match(incoming):
        return incoming
    return uuid.uuid4().hex[:16]


def current_request_id() -> str | None:
    return request_id_var.get()


@contextmanager
def request_context(request_id: str) -> Iterator[str]:
    token = request_id_var.set(request_id)
    try:
        yield request_id
    finally:
        request_id_var.reset(token)


class RequestIdFilter(logging.Filter):
    """Stamps every record with the current request id ("-" outside a call)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get() or "-"
        return True


class RedactFilter(logging.Filter):
    """The safety net under "no personal data in logs": every record that reaches graphmem's
    handler leaves with its message, `extra=` strings and traceback redacted
    (graphmem.infra.redaction), whoever logged it - graphmem, a store driver quoting a row it
    refused, or the MCP framework quoting a tool error. graphmem's own calls log ids and
    counts, never content; this catches what a dependency or a future call gets wrong.
    Library users who keep their own handlers can add it to them."""

    def filter(self, record: logging.LogRecord) -> bool:
        from graphmem.infra.redaction import redact

        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        for key, value in list(vars(record).items()):
            if key not in _STANDARD and not key.startswith("_") and isinstance(value, str):
                setattr(record, key, redact(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, request_id, then any `extra=` fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or request_id_var.get()
        if rid and rid != "-":
            out["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = record.exc_text or self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The CLI's familiar `LEVEL logger: message`, with `[request <id>]` inside a call."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        rid = getattr(record, "request_id", None)
        if rid and rid != "-":
            text += f" [request {rid}]"
        if record.exc_info:
            text += "\n" + (record.exc_text or self.formatException(record.exc_info))
        return text


def configure(level: str | None = None, fmt: str | None = None) -> None:
    """Set up the root logger from arguments or GRAPHMEM_LOG_LEVEL / GRAPHMEM_LOG_FORMAT."""
    level = (level or environment.log_level() or "WARNING").upper()
    fmt = (fmt or environment.log_format() or "text").lower()
    if fmt not in FORMATS:
        from graphmem.errors import InvalidInputError

        raise InvalidInputError("GRAPHMEM_LOG_FORMAT", f"{fmt!r} is not one of text, json")
    if level not in logging.getLevelNamesMapping():
        from graphmem.errors import InvalidInputError

        raise InvalidInputError("GRAPHMEM_LOG_LEVEL", f"{level!r} is not a logging level")
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.addFilter(RedactFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(level)
    # pypdf logs a warning for each flaw it reads past in a malformed PDF ("EOF marker not
    # found"); graphmem says what it could not read in its own one line (an image, a document),
    # so pypdf's lines show only when INFO or DEBUG was asked for.
    quiet = root.level >= logging.WARNING
    logging.getLogger("pypdf").setLevel(logging.ERROR if quiet else logging.NOTSET)
    if fmt == "json":
        logging.captureWarnings(True)  # Python warnings become records too, not stray text


def json_enabled() -> bool:
    return (environment.log_format() or "text").lower() == "json"


def route_framework_logs() -> None:
    """Send fastmcp's and uvicorn's records through the root handler, so a JSON log stream
    has no stray text lines (fastmcp otherwise installs its own console handlers)."""
    import fastmcp

    fastmcp.settings.log_enabled = False  # no re-configuration when the server starts
    for name in ("fastmcp", "mcp", "uvicorn", "uvicorn.error", "uvicorn.access"):
        lg = logging.getLogger(name)
        for h in list(lg.handlers):
            lg.removeHandler(h)
        lg.propagate = True
        lg.setLevel(logging.NOTSET)


__all__ = [
    "REQUEST_ID_HEADER",
    "JsonFormatter",
    "RedactFilter",
    "RequestIdFilter",
    "TextFormatter",
    "configure",
    "current_request_id",
    "new_request_id",
    "request_context",
]
