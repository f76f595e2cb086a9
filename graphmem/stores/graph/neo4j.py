"""Neo4j 5 graph adapter (the `neo4j` driver). Every statement it runs is read from cypher/.

Memories are (:Memory {id, user_id, ...}) nodes, relations typed relationships (CAUSAL,
TEMPORAL, RELATED, ...) carrying user_id and strength, entities (:Entity {uid, user_id, key,
name, type}) linked by MENTIONS. Constraints and indexes are applied on connect.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from graphmem.errors import StoreUnavailableError
from graphmem.infra.extras import require_extra
from graphmem.settings import environment
from graphmem.stores.graph.port import GraphEdge, GraphNode

_NAME = re.compile(r"^//\s*name:\s*(\w+)\s*$", re.MULTILINE)


def cypher_dir() -> Traversable:
    """$GRAPHMEM_CYPHER_DIR (to try edited statements without reinstalling), else the package's
    own `graphmem/cypher` data: the repository's top-level cypher/ folder, linked into the
    package so a wheel carries it and a checkout reads it in place. Never a path relative to
    the source file, which breaks as soon as the package is installed anywhere else."""
    given = environment.cypher_dir()
    return Path(given) if given else resources.files("graphmem") / "cypher"


@lru_cache(maxsize=32)
def load_statements(filename: str) -> dict[str, str]:
    """The named statements of one .cypher file: `// name: x` starts statement x."""
    text = cypher_dir().joinpath(*filename.split("/")).read_text("utf-8")
    parts = _NAME.split(text)
    out = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        lines = [ln for ln in body.splitlines() if not ln.strip().startswith("//")]
        out[name] = "\n".join(lines).strip().rstrip(";").strip()
    return out


def statement(filename: str, name: str) -> str:
    return load_statements(filename)[name]


log = logging.getLogger("graphmem.graph")


class Neo4jGraph:
    backend = "neo4j"
    in_process = False
    projected = True

    def __init__(self, url: str, user: str, password: str | None, database: str | None = None):
        require_extra("neo4j", "neo4j", "the Neo4j graph store")
        import neo4j

        self._neo4j = neo4j
        self.url = url
        self.database = database or None
        # Short timeouts: a graph store that is down must degrade recall, not stall it.
        self.driver = neo4j.GraphDatabase.driver(
            url,
            auth=(user, password or ""),
            connection_timeout=3.0,
            connection_acquisition_timeout=5.0,
            max_transaction_retry_time=2.0,
        )
        self._schema_ready = False
        try:
            self._ensure_schema()
        except StoreUnavailableError as e:  # started before Neo4j: retried on first use
            log.warning("%s; the schema is applied when it comes back", e)
        except Exception:
            self.driver.close()
            raise

    def _ensure_schema(self) -> None:
        for stmt in load_statements("schema.cypher").values():
            self._execute(stmt, {})
        self._schema_ready = True

    def _execute(self, stmt: str, params: dict[str, Any]) -> list[Any]:
        try:
            records, _, _ = self.driver.execute_query(stmt, params, database_=self.database)
        except (
            self._neo4j.exceptions.ServiceUnavailable,
            self._neo4j.exceptions.SessionExpired,
            OSError,
        ) as e:
            raise StoreUnavailableError(f"graph store (Neo4j) unreachable: {e}") from e
        return records

    def _run(self, stmt: str, **params: Any) -> list[Any]:
        if not self._schema_ready:
            self._ensure_schema()
        return self._execute(stmt, params)

    def sync(self, nodes: list[GraphNode], edges: list[GraphEdge]) -> None:
        if nodes:
            self._run(
                statement("upsert.cypher", "upsert_memories"),
                rows=[
                    {
                        "id": n.memory_id,
                        "user_id": n.user_id,
                        "memory_type": n.memory_type,
                        "status": n.status,
                        "created_at": n.created_at,
                        "session_id": n.session_id,
                        "summary": n.summary,
                        "valid_from": n.valid_from,
                        "valid_to": n.valid_to,
                        "agent_id": n.agent_id,
                        "run_id": n.run_id,
                    }
                    for n in nodes
                ],
            )
            self._run(statement("upsert.cypher", "clear_edges"), ids=[n.memory_id for n in nodes])
            mentions = [
                {
                    "memory_id": n.memory_id,
                    "user_id": n.user_id,
                    "uid": f"{n.user_id}|{e.key}",
                    "key": e.key,
                    "name": e.name,
                    "type": e.entity_type,
                }
                for n in nodes
                for e in n.entities
            ]
            if mentions:
                self._run(statement("upsert.cypher", "upsert_mentions"), rows=mentions)
        if edges:
            self._run(
                statement("upsert.cypher", "upsert_edges"),
                rows=[
                    {
                        "source": e.source_id,
                        "target": e.target_id,
                        "type": e.relation_type.upper(),
                        "strength": e.strength,
                        "user_id": e.user_id,
                        "valid_from": e.valid_from,
                        "valid_to": e.valid_to,
                    }
                    for e in edges
                ],
            )

    def delete(self, memory_ids: list[str]) -> None:
        if memory_ids:
            self._run(statement("delete.cypher", "delete_memories"), ids=memory_ids)

    def prune_entities(self, user_ids: list[str]) -> None:
        if user_ids:
            self._run(statement("delete.cypher", "prune_entities"), user_ids=user_ids)

    def rebuilt(self) -> None:
        """The server keeps its own indexes; nothing to prepare."""

    def delete_user(self, user_id: str) -> None:
        self._run(statement("delete.cypher", "delete_user"), user_id=user_id)

    def neighbours(
        self,
        user_id: str,
        memory_ids: list[str],
        relation_types: tuple[str, ...] | None,
        per_node: int,
        at: float | None = None,
    ) -> list[GraphEdge]:
        if not memory_ids:
            return []
        rows = self._run(
            statement("expand.cypher", "neighbours"),
            ids=list(dict.fromkeys(memory_ids)),
            user_id=user_id,
            types=list(relation_types) if relation_types is not None else None,
            per_node=int(per_node),
            at=at,
        )
        return [
            GraphEdge(
                user_id,
                r["source"],
                r["target"],
                r["type"],
                float(r["strength"]),
                r["valid_from"],
                r["valid_to"],
            )
            for r in rows
        ]

    def node_ids(self, user_id: str | None = None) -> set[str]:
        return {r["id"] for r in self._run(statement("stats.cypher", "node_ids"), user_id=user_id)}

    def edge_count(self, user_id: str | None = None) -> int:
        return int(self._run(statement("stats.cypher", "edge_count"), user_id=user_id)[0]["n"])

    def entity_names(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        rows = self._run(
            statement("expand.cypher", "entity_names"), ids=memory_ids, user_id=user_id
        )
        return {r["id"]: list(r["names"]) for r in rows}

    def close(self) -> None:
        self.driver.close()

    def health(self) -> dict[str, object]:
        try:
            r = self._run(statement("stats.cypher", "health"))[0]
            return {
                "backend": self.backend,
                "ok": True,
                "url": self.url,
                "version": r["version"],
                "edition": r["edition"],
            }
        except Exception as e:  # noqa: BLE001 - health reports, never raises
            return {"backend": self.backend, "ok": False, "error": str(e)}
