"""Traces: an OpenTelemetry span for every write and search and for each of their steps, off by
default.

Metrics say how slow recall is on average; a trace says where one slow call spent its time
(the query embedding, the vector or keyword channel, the graph walk, the fusion) and how much
each step had to work on. The use-cases mark their steps with `with span(...)`, one line each.

Three rules keep this safe and cheap:

- Off costs nothing. With `tracing=off` (the default) `span()` returns one shared object whose
  enter and exit do nothing, and no OpenTelemetry module is imported: the default install does
  not need the `graphmem[otel]` extra, and a search pays a function call per step.
- Nothing a user wrote leaves in a span. Attributes are counts, sizes, flags and names chosen
  by the code; never content, a query, metadata or an id in clear. The user is named by the
  keyed hash the erase audit uses (graphmem.stores.id_hash: HMAC-SHA256 under the install's
  key), so an operator holding the key can find one user's traces and nobody else can.
- graphmem's spans come from a tracer provider of its own. The process's global provider (an
  application's, or the one the MCP framework reports to) is left alone, so graphmem never
  exports spans other libraries made, with whatever they attach; a caller's trace context is
  still honoured, so graphmem's spans join a trace an agent started.

Tracing is per process: the first service opened with tracing on starts it (`configure`), and
it stays on until the process exits (buffered spans are flushed then) or `stop()`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from graphmem.infra.extras import require_extra

if TYPE_CHECKING:  # never imported at run time unless tracing is on
    from opentelemetry.context import Context as OtelContext
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.trace import Span, Tracer

    from graphmem.settings import Settings

R = TypeVar("R")
# An attribute value: a count, a size, a duration, a flag, or a name the code chose.
Attr = bool | int | float | str
USER_ATTR = "graphmem.user"

_tracer: Tracer | None = None
_provider: TracerProvider | None = None
_hash_user: Callable[[str], str] | None = None


class Step(Protocol):
    """What `span()` returns, and `with span(...) as step` gives: `step.set(hits=3)` adds
    attributes once the step knows its outcome; with tracing off it does nothing."""

    def __enter__(self) -> Step: ...

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None: ...

    def set(self, **attrs: Attr) -> None: ...


class _Off:
    """The span of tracing off: one shared instance, nothing done on enter, exit or set."""

    __slots__ = ()

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        return None

    def set(self, **attrs: Attr) -> None:
        return None


_OFF = _Off()


class _Live:
    """A recording span, current for the block it encloses; an exception ends it with an error
    status and the exception's type (its message may quote data, so it is not recorded)."""

    __slots__ = ("_attrs", "_cm", "_name", "_span", "_tracer")

    def __init__(self, tracer: Tracer, name: str, attrs: dict[str, Attr]) -> None:
        self._tracer, self._name, self._attrs = tracer, name, attrs
        self._span: Span | None = None
        self._cm: Any = None

    def __enter__(self) -> _Live:
        self._cm = self._tracer.start_as_current_span(
            self._name,
            attributes=self._attrs,
            record_exception=False,
            set_status_on_exception=False,
        )
        self._span = self._cm.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if exc_type is not None and self._span is not None:
            from opentelemetry.trace import Status, StatusCode

            self._span.set_status(Status(StatusCode.ERROR))
            self._span.set_attribute("error.type", exc_type.__name__)
        self._cm.__exit__(exc_type, *rest)

    def set(self, **attrs: Attr) -> None:
        if self._span is not None:
            self._span.set_attributes(_attributes(attrs, None))


def _attributes(attrs: dict[str, Any], user: str | None) -> dict[str, Attr]:
    out: dict[str, Attr] = {f"graphmem.{k}": v for k, v in attrs.items() if v is not None}
    if user is not None and _hash_user is not None:
        out[USER_ATTR] = _hash_user(user)
    return out


def span(name: str, /, *, user: str | None = None, **attrs: Attr | None) -> Step:
    """`with span("graphmem.search.vector", pool=40) as step:` times the block as a child of
    the current span. `user` is the raw user id: it is recorded only as its keyed hash. Every
    other attribute (prefixed `graphmem.`) must be a count, size, flag or code-chosen name;
    None values are left out. A no-op when tracing is off."""
    tracer = _tracer
    if tracer is None:
        return _OFF
    return _Live(tracer, name, _attributes(attrs, user))


def note(**attrs: Attr) -> None:
    """Add attributes to the current span (a step that learns something its caller's span
    should say, like a cache hit); a no-op when tracing is off."""
    if _tracer is None:
        return
    from opentelemetry import trace

    trace.get_current_span().set_attributes(_attributes(attrs, None))


def carry(fn: Callable[..., R], name: str | None = None, /, **attrs: Attr) -> Callable[..., R]:
    """`fn`, to run on a worker thread (graphmem.infra.workers) as part of the current trace, in a
    span `name` when one is given. Thread pools do not carry context variables across, so
    without this a channel run beside the calling thread would start a trace of its own.
    With tracing off, `fn` itself."""
    if _tracer is None:
        return fn
    from opentelemetry import context as otel

    parent: OtelContext = otel.get_current()

    def run(*args: Any, **kwargs: Any) -> R:
        token = otel.attach(parent)
        tracer = _tracer
        try:
            if name is None or tracer is None:
                return fn(*args, **kwargs)
            with _Live(tracer, name, _attributes(attrs, None)):
                return fn(*args, **kwargs)
        finally:
            otel.detach(token)

    return run


@contextmanager
def joined(headers: Mapping[str, str], name: str, /, **attrs: Attr) -> Iterator[None]:
    """A span `name` for one incoming request, child of the caller's trace when its HTTP
    headers carry a W3C `traceparent` (and `tracestate`), so an agent that traces its own
    calls sees graphmem's steps inside them. A trace already current (the MCP request's
    `_meta.traceparent`, which the MCP framework attaches) wins over the headers. A no-op
    when tracing is off."""
    tracer = _tracer
    if tracer is None:
        yield
        return
    from opentelemetry import context as otel
    from opentelemetry import trace
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    token = None
    carrier = {k.lower(): v for k, v in headers.items() if k.lower() in _TRACE_HEADERS}
    if carrier and not trace.get_current_span().get_span_context().is_valid:
        token = otel.attach(TraceContextTextMapPropagator().extract(carrier))
    try:
        with _Live(tracer, name, _attributes(attrs, None)):
            yield
    finally:
        if token is not None:
            otel.detach(token)


_TRACE_HEADERS = frozenset({"traceparent", "tracestate"})


def enabled() -> bool:
    return _tracer is not None


def configure(settings: Settings) -> None:
    """Start tracing as `settings.tracing.mode` says, once per process: `console` writes one
    JSON line per span to stderr (stdout carries the stdio MCP protocol and CLI output), `otlp`
    sends batches to `settings.tracing.otlp_endpoint`. `off`, or tracing already on, changes
    nothing. Without graphmem[otel] a mode other than off fails with the one line naming the
    extra."""
    mode = settings.tracing.mode
    if mode == "off" or _tracer is not None:
        return
    what = f"tracing mode {mode}"
    require_extra("opentelemetry.sdk", "otel", what)
    from graphmem.stores.id_hash import IdHasher

    exporter: SpanExporter
    if mode == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        exporter = ConsoleSpanExporter(
            out=sys.stderr, formatter=lambda s: s.to_json(indent=None) + "\n"
        )
    else:
        require_extra("opentelemetry.exporter.otlp.proto.http", "otel", what)
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=settings.tracing.otlp_endpoint)
    start(exporter, IdHasher.for_dir(settings.data_dir), batch=mode == "otlp")


def start(exporter: SpanExporter, hash_user: Callable[[str], str], *, batch: bool = False) -> None:
    """Send graphmem's spans to `exporter` from now on, naming users by `hash_user`; `batch`
    exports from a background thread (for a network exporter) instead of as each span ends.
    Replaces a running setup (flushing it first); the tests use it with an in-memory exporter."""
    global _tracer, _provider, _hash_user
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    from graphmem.version import __version__

    stop()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "graphmem", "service.version": __version__})
    )
    provider.add_span_processor(
        BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    )
    _provider, _hash_user = provider, hash_user
    _tracer = provider.get_tracer("graphmem", __version__)


def stop() -> None:
    """Flush and end tracing; spans are no-ops again."""
    global _tracer, _provider, _hash_user
    provider, _tracer, _provider, _hash_user = _provider, None, None, None
    if provider is not None:
        provider.shutdown()


__all__ = ["Step", "carry", "configure", "enabled", "joined", "note", "span", "start", "stop"]
