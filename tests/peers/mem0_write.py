"""Run inside a virtualenv holding mem0ai and langchain (tests/service/test_import_pypi_peers.py
installs them): writes memories through mem0's own Memory in its no-LLM mode (`add(...,
infer=False)` stores each message as it is), changes one with `update`, and writes what
`get_all` returns as JSON, the export graphmem reads; mem0 keeps its history.db in ROOT.

Fully offline: the vector store is mem0's qdrant provider in local mode (qdrant-client's
in-process store in ROOT/qdrant), the embedder mem0's `langchain` provider around a local
hashing embedder (16 numbers a text, nothing downloaded), and the LLM, which infer=False never
calls, is an OpenAI client with a placeholder key. Telemetry is off (MEM0_TELEMETRY=False in
the environment the test gives).

Usage: python mem0_write.py ROOT < writes.json
writes.json: {"add": [{"text", "user_id", "agent_id"?, "metadata"?}], "update": {text: new}}
Writes ROOT/mem0.json ({"results": [...]}, every user's get_all) and ROOT/history.db.
"""

import hashlib
import json
import os
import sys

from langchain_core.embeddings import Embeddings
from mem0 import Memory

DIMS = 16


class HashingEmbeddings(Embeddings):
    """Each word adds 1 to one of DIMS slots: an embedding computed here, not fetched."""

    def embed_query(self, text: str) -> list[float]:
        vector = [0.0] * DIMS
        for word in text.lower().split():
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMS] += 1.0
        return vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]


def main(root: str, writes: dict) -> None:
    memory = Memory.from_config(
        {
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "path": os.path.join(root, "qdrant"),
                    "collection_name": "peer_test",
                    "embedding_model_dims": DIMS,
                    "on_disk": True,
                },
            },
            "embedder": {"provider": "langchain", "config": {"model": HashingEmbeddings()}},
            "llm": {"provider": "openai", "config": {"api_key": "not-used-with-infer-false"}},
            "history_db_path": os.path.join(root, "history.db"),
        }
    )
    ids: dict[str, str] = {}
    users: list[str] = []
    for w in writes["add"]:
        scope = {"user_id": w["user_id"]}
        if w.get("agent_id"):
            scope["agent_id"] = w["agent_id"]
        added = memory.add(
            [{"role": "user", "content": w["text"]}],
            infer=False,
            metadata=w.get("metadata"),
            **scope,
        )
        ids[w["text"]] = added["results"][0]["id"]
        users += [w["user_id"]] if w["user_id"] not in users else []
    for old, new in writes.get("update", {}).items():
        memory.update(ids[old], new)
    rows = []
    for user in users:
        rows += memory.get_all(filters={"user_id": user}, top_k=1000)["results"]
    with open(os.path.join(root, "mem0.json"), "w", encoding="utf-8") as f:
        json.dump({"results": rows}, f)
    memory.vector_store.client.close()  # qdrant's local store, closed before the interpreter


if __name__ == "__main__":
    main(sys.argv[1], json.load(sys.stdin))
