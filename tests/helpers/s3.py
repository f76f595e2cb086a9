"""The S3-compatible test server scripts/services.sh starts (gofakes3 over a directory, built
from deploy/s3-test-server), reached the same way by every test that stores images in a bucket.

Each test gets a fresh prefix of its own in the shared bucket (`t-<random>`), emptied afterwards,
so tests never see each other's objects. Without the server (GRAPHMEM_TEST_S3_ENDPOINT unset, or
nothing answering there) these tests skip, saying how to start it; the test command starts it.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from graphmem.images import ImageSettings

START = "scripts/services.sh start-s3 && source .services/env (scripts/test.sh starts it)"


def s3_settings(prefix: str, **overrides: object) -> ImageSettings:
    """Images settings that store into the test server's bucket under `prefix`; skips the test
    when the server is not running."""
    endpoint = os.environ.get("GRAPHMEM_TEST_S3_ENDPOINT")
    if not endpoint:
        pytest.skip(f"the S3 test server is not running (GRAPHMEM_TEST_S3_ENDPOINT unset): {START}")
    url = urlsplit(endpoint)
    try:
        socket.create_connection((url.hostname or "127.0.0.1", url.port or 80), timeout=2).close()
    except OSError as e:
        pytest.skip(f"the S3 test server does not answer at {endpoint} ({e}): {START}")
    values: dict[str, object] = {
        "store": f"s3://{os.environ['GRAPHMEM_TEST_S3_BUCKET']}/{prefix}",
        "s3_endpoint": endpoint,
        "s3_region": "us-east-1",
        "s3_access_key": os.environ["GRAPHMEM_TEST_S3_ACCESS_KEY"],
        "s3_secret_key": os.environ["GRAPHMEM_TEST_S3_SECRET_KEY"],
        "s3_timeout_seconds": 10.0,
        **overrides,
    }
    return ImageSettings.model_validate(values)


def new_prefix() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def bucket_names(settings: ImageSettings) -> list[str]:
    """Every object name in the bucket under the settings' prefix, listed by a client of its
    own (not through the store under test)."""
    from graphmem.images.s3 import S3ImageStore

    store = S3ImageStore.from_settings(settings)
    listed = store.client.list_objects(store.bucket, prefix=store.prefix, recursive=True)
    return sorted(str(o.object_name) for o in listed)


@contextmanager
def s3_prefix(**overrides: object) -> Iterator[ImageSettings]:
    """Settings for a fresh prefix in the test bucket; every object under it goes afterwards."""
    from minio.deleteobjects import DeleteObject

    from graphmem.images.s3 import S3ImageStore

    settings = s3_settings(new_prefix(), **overrides)
    try:
        yield settings
    finally:
        store = S3ImageStore.from_settings(settings)
        names = bucket_names(settings)
        errors = list(store.client.remove_objects(store.bucket, map(DeleteObject, names)))
        assert not errors, errors
