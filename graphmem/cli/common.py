"""What every `graphmem` command shares: opening the service, resolving the user, printing
text or JSON, and turning errors into exit codes.

Every command takes --user and --json. Bad input exits with status 2 and one line naming the
field; a store that cannot be reached exits with status 3.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphmem.actor import CLI, current_actor
from graphmem.errors import GraphmemError, InvalidInputError, StoreUnavailableError
from graphmem.model import Memory
from graphmem.settings import Settings

if TYPE_CHECKING:
    from graphmem.service import MemoryService

Command = Callable[[argparse.Namespace], int | None]
"""A command runs on the parsed arguments; it returns an exit code, or None for 0."""
AddCommand = Callable[[str, Command, str], argparse.ArgumentParser]
"""Registers a subcommand (name, command, help) and returns its parser for the arguments."""


def open_service(args: argparse.Namespace) -> MemoryService:
    """The service on --data-dir (else the configured one); imported here so `graphmem --help`
    does not load the stores and the embedding model."""
    from graphmem.service import MemoryService

    overrides: dict[str, Any] = {}
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    return MemoryService(Settings(**overrides))


def user_of(args: argparse.Namespace) -> str:
    return args.user or os.environ.get("GRAPHMEM_USER_ID") or Settings().user_id


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, default=str))
    else:
        print(text)


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


def fail(error: Exception, code: int) -> int:
    print(f"error: {error}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    """Run the chosen command as the CLI actor - whoever runs the command owns the data: an
    operator - and map its errors to the exit codes the module docstring promises."""
    token = current_actor.set(CLI)
    try:
        return args.fn(args) or 0
    except InvalidInputError as e:
        return fail(e, 2)
    except StoreUnavailableError as e:
        return fail(e, 3)
    except GraphmemError as e:
        return fail(e, 1)
    except (OSError, json.JSONDecodeError) as e:
        return fail(e, 1)
    finally:
        current_actor.reset(token)
