"""How a `graphmem` command fails: its exit code, and one error a person or a program can read.

A script that runs `graphmem ... --json` parses stdout whatever happens, so a failure under
--json is one JSON document on stdout, `{"error": {"field": ..., "message": ...}}`, and
nothing else; without --json it is one line on stderr, as before. The exit code says which
kind of failure it was without parsing anything (docs/cli.md lists them).

Argument errors are failures like the others: argparse would print its usage and exit on its
own, which under --json left a script with text it cannot parse, so the parsers here raise
UsageError instead and the command reports it the same way as any bad input.

Standard library and graphmem.errors only: building the parser must stay light.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any, NoReturn

from graphmem.errors import (
    GraphmemError,
    InvalidInputError,
    StoreInUseError,
    StoreUnavailableError,
)

OK = 0
NOT_FOUND = 1
"""No such memory for this user (or one held for review), and any other failure graphmem
reports that is neither bad input nor an unreachable store."""
BAD_INPUT = 2
"""A bad argument or value, including the command line itself; nothing was written."""
UNAVAILABLE = 3
"""The store cannot be reached, or another process (a running server) holds it."""
INCOMPLETE = 4
"""`forget-user` erased what it could but could not verify a complete erasure yet."""


class StoreHeldError(StoreUnavailableError):
    """A running `graphmem serve` holds the store and cannot run this command for the CLI.

    Not a StoreInUseError: that one means an unknown process holds the store's lock; this one
    names the server and says what to do about it, in a message of its own."""


@dataclass(frozen=True)
class Failure:
    """A failure as a command reports it: the exit code, the field at fault (None when no
    field is), the message without the field, and the one line printed without --json."""

    code: int
    field: str | None
    message: str
    text: str

    def document(self) -> str:
        return json.dumps(
            {"error": {"field": self.field, "message": self.message}}, ensure_ascii=False
        )


def field_and_message(error: Exception) -> tuple[str | None, str]:
    """graphmem's errors say `field: message` in one string; a JSON error carries them apart."""
    field = getattr(error, "field", None)
    message = getattr(error, "message", None) or str(error)
    if not isinstance(field, str) or not field:
        return None, message
    if message.startswith(f"{field}: "):
        message = message[len(field) + 2 :]
    return field, message


def failure_of(error: Exception) -> Failure:
    """The exit code and text of an error a command raised (the order matters: subclasses
    first)."""
    field, message = field_and_message(error)
    if isinstance(error, StoreHeldError):
        return Failure(UNAVAILABLE, None, message, f"graphmem: {message}")
    if isinstance(error, StoreInUseError):
        message = f"{message}; stop it, or wait for it to finish"
        return Failure(UNAVAILABLE, None, message, f"graphmem: {message}")
    if isinstance(error, InvalidInputError):
        return Failure(BAD_INPUT, field, message, f"error: {error}")
    if isinstance(error, StoreUnavailableError):
        return Failure(UNAVAILABLE, field, message, f"error: {error}")
    if isinstance(error, UsageError):
        return Failure(BAD_INPUT, error.field, error.message, error.text)
    if isinstance(error, GraphmemError):  # NotFoundError (and HeldForReviewError) above all
        return Failure(NOT_FOUND, field, message, f"error: {error}")
    # OSError, a JSON file that does not parse: reported, never a traceback
    return Failure(NOT_FOUND, None, str(error), f"error: {error}")


def setting_error(error: ValueError) -> InvalidInputError | None:
    """pydantic's error for a setting that does not parse (a GRAPHMEM_ variable or a `.env`
    line, read when a command opens its settings) as bad input naming the setting; None for
    any other ValueError, which is a bug to see in full. The value itself is left out: it may
    be a password."""
    errors = getattr(error, "errors", None)
    if not type(error).__module__.startswith("pydantic") or not callable(errors):
        return None
    found = errors() or [{}]
    first = found[0] if isinstance(found[0], dict) else {}
    from graphmem.settings.explain import dotted_name

    field = dotted_name(str(getattr(error, "title", "")), tuple(first.get("loc", ()))) or "settings"
    said = str(first.get("msg") or "is not a valid value")
    return InvalidInputError(
        field, f"{said} (a setting, from a GRAPHMEM_ environment variable or the .env file)"
    )


def wants_json(argv: list[str]) -> bool:
    """Did this command line ask for JSON? Read from the raw arguments, because a command line
    that does not parse has no parsed --json to ask."""
    words = argv[: argv.index("--")] if "--" in argv else argv
    return "--json" in words


class UsageError(Exception):
    """argparse's own errors (a missing argument, an unknown option, an invalid choice), raised
    instead of printing the usage and exiting, so that --json applies to them too. `str()` is
    argparse's own wording, which names the argument as the user typed it."""

    def __init__(
        self, parser: argparse.ArgumentParser, field: str | None, message: str, said: str
    ) -> None:
        super().__init__(said)
        self.parser = parser
        self.field = field
        self.message = message

    @property
    def text(self) -> str:
        """What argparse prints: the usage, then `prog: error: ...`."""
        return f"{self.parser.format_usage().rstrip()}\n{self.parser.prog}: error: {self}"


def field_name(argument_name: str | None) -> str | None:
    """`-k/--top-k` -> `top_k`, `content` -> `content`, `COMMAND` -> `command`: the name a
    JSON error gives the argument at fault."""
    if not argument_name:
        return None
    last = argument_name.split("/")[-1].split(",")[0].strip()
    return last.lstrip("-").replace("-", "_").lower() or None


REQUIRED = "the following arguments are required: "


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise UsageError. Subparsers are built with the parser's
    own class, so every `graphmem COMMAND` parser is one too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["exit_on_error"] = False  # raise ArgumentError; parse_known_args converts it
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        try:
            return super().parse_known_args(args, namespace)
        except argparse.ArgumentError as e:
            field = field_name(e.argument_name)
            message = e.message
            if field and message.startswith(f"{field}: "):  # graphmem's own `field: ...` types
                message = message[len(field) + 2 :]
            raise UsageError(self, field, message, str(e)) from None

    def error(self, message: str) -> NoReturn:
        field = None
        if message.startswith(REQUIRED):
            field = field_name(message[len(REQUIRED) :].split(" ")[0])
        raise UsageError(self, field, message, message)


__all__ = [
    "BAD_INPUT",
    "INCOMPLETE",
    "NOT_FOUND",
    "OK",
    "UNAVAILABLE",
    "Failure",
    "Parser",
    "StoreHeldError",
    "UsageError",
    "failure_of",
    "wants_json",
]
