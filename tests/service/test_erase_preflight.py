"""An erase that cannot reach every store it must empty refuses before erasing anything.

The records are erased first and the extra stores (an image bucket, Redis) after them, so a
bucket that was down failed `forget-user` half-way: the memories gone, the images still in the
bucket, a stack of connection errors instead of a receipt. The bucket here is an S3 endpoint on
a loopback port nothing listens on (no mock: the real client, a refused connection)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.embedding import Embedder
from graphmem.errors import StoreUnavailableError
from graphmem.images import ImageSettings


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_image_bucket_erases_nothing(tmp_path: Path, embedder: Embedder) -> None:
    pytest.importorskip("minio")
    bucket = ImageSettings(
        store="s3://memories/images/",
        s3_endpoint=f"http://127.0.0.1:{closed_port()}",
        s3_access_key="graphmem",
        s3_secret_key="not-a-real-secret",
        s3_timeout_seconds=1,
    )
    svc = MemoryService(Settings(data_dir=tmp_path / "d", images=bucket), embedder=embedder)
    try:
        svc.write("alice", "Alice's dentist is Dr. Okafor on Bank Street")
        with pytest.raises(StoreUnavailableError, match="images store could not be reached"):
            svc.forget_user("alice")
        kept = svc.list("alice")
        assert [m.content for m in kept] == ["Alice's dentist is Dr. Okafor on Bank Street"]
    finally:
        svc.close()
