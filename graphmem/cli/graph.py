"""The graph commands: relate, graph, backfill relations|rebuild."""

from __future__ import annotations

import argparse

from graphmem.cli.common import EVERY_USER_HELP, AddCommand, emit, open_service, to_int, user_of
from graphmem.domain.relation_types import RELATION_TYPES
from graphmem.domain.visibility import Viewer


def cmd_relate(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        rel = svc.relate(user_of(args), args.source_id, args.target_id, args.type, args.strength)
    data = {
        "source_id": rel.source_id,
        "target_id": rel.target_id,
        "relation_type": rel.relation_type,
        "strength": rel.strength,
    }
    emit(args, data, f"{rel.source_id} -[{rel.relation_type} {rel.strength:g}]-> {rel.target_id}")


def cmd_graph(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        g = svc.graph(
            user_of(args), args.memory_id, args.hops, args.relation_types, viewer=Viewer.OPERATOR
        )
    lines = [f"{n['id']}  [{n['memory_type']}]  {n['content']}" for n in g["nodes"]]
    lines += [f"  {e['from']} -[{e['type']} {e['strength']:g}]-> {e['to']}" for e in g["edges"]]
    emit(args, g, "\n".join(lines))


def cmd_backfill(args: argparse.Namespace) -> None:
    with open_service(args) as svc:
        if args.job == "relations":
            rep = svc.backfill_relations(
                user_id=args.user,
                batch=args.batch,
                dry_run=args.dry_run,
                restart=args.restart,
                quiet=args.quiet,
            )
            data = rep.to_dict()
            verb = "would add" if args.dry_run else "added"
            text = (
                f"{rep.memories} memories from doc {rep.resumed_from}: {verb}"
                f" {rep.relations} relations, {rep.entities} entity links"
            )
        else:
            if args.dry_run:
                n = svc.records.count(args.user)
                data, text = {"would_rebuild": n, "dry_run": True}, f"would rebuild {n} memories"
            else:
                data = svc.rebuild(user_id=args.user, quiet=args.quiet)
                text = f"rebuilt {data['vectors']} vectors, {data['graph_nodes']} graph nodes"
    emit(args, data, text)


def register(add: AddCommand) -> None:
    types = ", ".join(RELATION_TYPES)
    sp = add("relate", cmd_relate, "state a relation between two memories (an edge in the graph)")
    sp.add_argument("source_id")
    sp.add_argument("target_id")
    sp.add_argument("--type", default="related", help=f"one of {types} (default related)")
    sp.add_argument("--strength", type=float, default=1.0, help="in (0, 1], default 1")

    sp = add("graph", cmd_graph, "a memory's neighbourhood in the memory graph")
    sp.add_argument("memory_id")
    sp.add_argument("--hops", type=to_int("hops"), default=1)
    sp.add_argument("--relation-types", help=f"comma-separated subset of {types}")

    sp = add(
        "backfill",
        cmd_backfill,
        "relations: re-run extraction over stored memories (resumable); "
        "rebuild: rebuild the vector and graph projections from the records",
        user=EVERY_USER_HELP,
    )
    sp.add_argument("job", choices=["relations", "rebuild"])
    sp.add_argument("--batch", type=to_int("batch"), default=200)
    sp.add_argument("--dry-run", action="store_true", help="count, write nothing")
    sp.add_argument("--restart", action="store_true", help="ignore the checkpoint, start over")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
