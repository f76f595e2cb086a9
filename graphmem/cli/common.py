"""What every `graphmem` command shares: opening the service, resolving the user, printing
text or JSON, and turning errors into exit codes.

Every command takes --json, and every command that reads or writes a user's memories --user.
A failure is one line on stderr, or under --json one JSON error on stdout, with the exit code
graphmem.cli.failures defines: 1 not found, 2 bad input, 3 the store unreachable or held.

Only the standard library and light graphmem modules are imported here: `graphmem --help`
builds every command's parser, and must not pay for the settings, the stores or the model.
Commands print through `out()` / `err()` so that a server can run one on its own open store
and send back exactly what it printed (graphmem.cli.remote).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol, TextIO

from graphmem.cli.failures import Failure, failure_of, setting_error
from graphmem.domain.actor import CLI, current_actor
from graphmem.errors import GraphmemError, InvalidInputError

if TYPE_CHECKING:
    from graphmem.domain.model import Memory
    from graphmem.service.facade import MemoryService
    from graphmem.settings import Settings

Command = Callable[[argparse.Namespace], int | None]
"""A command runs on the parsed arguments; it returns an exit code, or None for 0."""

USER_HELP = "user id (default: $GRAPHMEM_USER_ID or 'default')"
EVERY_USER_HELP = "only this user's memories (default: every user's)"
JSON_HELP = "machine-readable JSON output, errors included (one JSON document on stdout)"


class AddCommand(Protocol):
    """Registers a subcommand and returns its parser for the arguments.

    Each command gets only the shared options that apply to it, so its --help lists nothing
    it ignores: `user` is --user's help text for this command (None: the command takes no
    --user), `json` --json's, and `data_dir` whether it reads a data directory."""

    def __call__(
        self,
        name: str,
        fn: Command,
        help_: str,
        *,
        user: str | None = USER_HELP,
        json: str = JSON_HELP,
        data_dir: bool = True,
    ) -> argparse.ArgumentParser: ...


_out: ContextVar[TextIO | None] = ContextVar("graphmem_cli_out", default=None)
_err: ContextVar[TextIO | None] = ContextVar("graphmem_cli_err", default=None)
_held: ContextVar[MemoryService | None] = ContextVar("graphmem_cli_service", default=None)
_new_stores: list[Path] = []
"""Stores this process is creating; each is announced once its command succeeds."""


def out() -> TextIO:
    """Where a command's output goes: stdout, or the buffer of a server running it."""
    return _out.get() or sys.stdout


def err() -> TextIO:
    return _err.get() or sys.stderr


@contextlib.contextmanager
def held_service(service: MemoryService, stdout: TextIO, stderr: TextIO) -> Iterator[None]:
    """Run commands on an already open service, printing into the given streams: how a
    server runs a command a CLI sent it. Context variables, so concurrent requests in other
    threads keep their own."""
    tokens = (_held.set(service), _out.set(stdout), _err.set(stderr))
    try:
        yield
    finally:
        _held.reset(tokens[0])
        _out.reset(tokens[1])
        _err.reset(tokens[2])


def serving() -> bool:
    """Is this command running inside a server, on the server's own service?"""
    return _held.get() is not None


def settings_of(args: argparse.Namespace) -> Settings:
    """The command's settings, read once per command: finding the data directory (is a server
    holding it?) and opening the service both need them, and each read parses the environment
    and `.env` again."""
    held: Settings | None = getattr(args, "_settings", None)
    if held is not None:
        return held
    from graphmem.settings import Settings

    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = args.data_dir
    args._settings = settings = Settings(**overrides)
    return settings


def data_dir_of(args: argparse.Namespace) -> Path:
    return settings_of(args).data_dir


def announce_data_dir(settings: Settings, *, new_store_now: bool = True) -> Path | None:
    """Say on stderr that the old default ./data is in use, and that
    this run creates a new store (so a first run says where memories go).

    Returns the directory of a store about to be created. With `new_store_now` false the
    caller says it later, once the command has succeeded: a command that fails on bad input
    prints one line, its error, and nothing else."""
    from graphmem.settings.paths import holds_store, legacy_notice

    where = settings.data_dir.expanduser()
    # a field pydantic filled from its default is not in model_fields_set; a flag, a variable
    # or a .env line is
    notice = legacy_notice(settings.data_dir, defaulted="data_dir" not in settings.model_fields_set)
    if notice:
        print(notice, file=err())
        return None
    if settings.records.backend != "sqlite" or holds_store(where):
        return None
    if new_store_now:
        print(new_store_line(where), file=err())
        return None
    return where


def new_store_line(data_dir: Path) -> str:
    return (
        f"graphmem: created a new store in {data_dir.resolve()}"
        " (GRAPHMEM_DATA_DIR or --data-dir chooses another)"
    )


class _Borrowed(contextlib.AbstractContextManager["MemoryService"]):
    """A server's service, lent to one command: leaving the `with` must not close it."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service

    def __enter__(self) -> MemoryService:
        return self.service

    def __exit__(self, *exc: object) -> None:
        return None


def open_service(args: argparse.Namespace) -> contextlib.AbstractContextManager[MemoryService]:
    """The service on --data-dir (else the configured one), or the server's own when a server
    runs this command; imported here so `graphmem --help` does not load the stores and the
    embedding model."""
    held = _held.get()
    if held is not None:
        return _Borrowed(held)
    from graphmem.service.facade import MemoryService

    settings = settings_of(args)
    fresh = announce_data_dir(settings, new_store_now=False)
    if fresh is not None:
        _new_stores.append(fresh)
    return MemoryService(settings)


def user_of(args: argparse.Namespace) -> str:
    from graphmem.settings import environment

    given = getattr(args, "user", None) or environment.user_id()
    return given or settings_of(args).user_id


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, default=str), file=out())
    else:
        print(text, file=out())


def memory_line(m: Memory) -> str:
    return f"{m.id}  [{m.memory_type.value}]  {m.content}"


def to_int(field: str) -> Callable[[str], int]:
    """An argparse type that names the field when the value is not an integer."""

    def conv(value: str) -> int:
        try:
            return int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{field}: {value!r} is not an integer") from None

    return conv


def open_file(path: str, mode: str, encoding: str | None = None) -> IO[Any]:
    """A file named on the command line: one that cannot be opened is bad input naming the
    `file` argument (exit 2), not an OSError reported as a failure of graphmem's."""
    try:
        return open(path, mode, encoding=encoding)  # noqa: SIM115 - the caller closes it
    except OSError as e:
        raise InvalidInputError("file", f"cannot open {path}: {e.strerror or e}") from None


def fail(failure: Failure, as_json: bool) -> int:
    """Report a failure: one JSON error on stdout under --json (so a script parses stdout
    whatever happens), else its one line on stderr. Returns its exit code."""
    if as_json:
        print(failure.document(), file=out())
    else:
        print(failure.text, file=err())
    return failure.code


Route = Callable[[argparse.Namespace], int | None]
"""Runs a command elsewhere and returns its exit code, or None to run it here."""


def run(args: argparse.Namespace, route: Route | None = None) -> int:
    """Run the chosen command as the CLI actor - whoever runs the command owns the data: an
    operator - and report its errors with the exit codes of graphmem.cli.failures.

    A command that opens the store first goes to `route`: the `graphmem` command passes the
    one that asks whether a server holds the store, and then has that server run it or stops
    with one line naming it (graphmem.cli.remote).
    """
    token = current_actor.set(CLI)
    try:
        if route is not None and getattr(args, "opens_store", False) and not serving():
            routed = route(args)
            if routed is not None:
                return routed
        code = args.fn(args) or 0
        if code == 0:
            from graphmem.settings.paths import holds_store

            for where in _new_stores:
                if holds_store(where):
                    print(new_store_line(where), file=err())
        return code
    except (GraphmemError, OSError, json.JSONDecodeError) as e:
        return fail(failure_of(e), bool(getattr(args, "json", False)))
    except ValueError as e:
        bad_setting = setting_error(e)
        if bad_setting is None:
            raise
        return fail(failure_of(bad_setting), bool(getattr(args, "json", False)))
    finally:
        _new_stores.clear()
        current_actor.reset(token)
