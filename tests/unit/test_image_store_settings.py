"""images.store and the S3 settings: which store each value opens, what is refused with one
clear line, and the secret key never shown (docs/images.md, "Where the bytes live")."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from graphmem.errors import InvalidInputError
from graphmem.images import FileImageStore, ImageSettings, open_image_store
from graphmem.images.s3 import S3ImageStore, S3Location
from graphmem.images.store import local_root
from graphmem.settings import Settings
from graphmem.settings.explain import explain


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith("GRAPHMEM_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield


def test_empty_is_the_data_directory_and_a_path_is_a_directory_of_its_own(tmp_path: Path) -> None:
    data = tmp_path / "data"
    default = open_image_store(ImageSettings(), data)
    assert isinstance(default, FileImageStore) and default.root == data / "images"
    assert local_root(default, data) is None  # the erase scan reads it with the data directory
    shared = open_image_store(ImageSettings(store=str(tmp_path / "nfs" / "img")), data)
    assert isinstance(shared, FileImageStore) and shared.root == tmp_path / "nfs" / "img"
    assert local_root(shared, data) == tmp_path / "nfs" / "img"


def test_s3_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_IMAGES_STORE", "s3://graphmem-images/prod/eu")
    monkeypatch.setenv("GRAPHMEM_IMAGES_S3_ENDPOINT", "https://minio.internal:9000")
    monkeypatch.setenv("GRAPHMEM_IMAGES_S3_ACCESS_KEY", "AKIAEXAMPLE")
    monkeypatch.setenv("GRAPHMEM_IMAGES_S3_SECRET_KEY", "do-not-print-me")
    s = Settings()
    assert s.images.store == "s3://graphmem-images/prod/eu"
    assert s.images.s3_secret_key is not None
    assert "do-not-print-me" not in repr(s.images) and "do-not-print-me" not in str(s.images)
    shown = {e.name: e.value for e in explain(s)}
    assert shown["images.s3_secret_key"] == "***"
    assert "do-not-print-me" not in str(shown)
    store = open_image_store(s.images, s.data_dir)
    assert isinstance(store, S3ImageStore)
    assert store.location == S3Location("minio.internal:9000", True, "graphmem-images", "prod/eu/")
    assert "do-not-print-me" not in repr(store)


@pytest.mark.parametrize(
    "value",
    ["http://bucket/x", "s3://", "s3://UPPER/x", "s3://a", "s3://bad_name/x", "gs://bucket"],
)
def test_a_store_that_is_no_directory_nor_bucket_is_refused(value: str) -> None:
    with pytest.raises(ValidationError) as e:
        ImageSettings(store=value)
    assert "store" in str(e.value)


@pytest.mark.parametrize(
    "endpoint",
    [
        "ftp://host",
        "minio.internal:9000",
        "https://key:secret@host",
        "https://host/bucket",
        "https://host?x=1",
    ],
)
def test_an_endpoint_is_scheme_host_and_port_only(endpoint: str) -> None:
    with pytest.raises(InvalidInputError) as e:
        S3Location.parse("s3://graphmem-images", endpoint)
    assert e.value.field == "images.s3_endpoint"


def test_the_s3_store_needs_both_keys() -> None:
    for keys in ({}, {"s3_access_key": "AKIAEXAMPLE"}, {"s3_secret_key": "only-the-secret"}):
        with pytest.raises(InvalidInputError) as e:
            S3ImageStore.from_settings(ImageSettings(store="s3://graphmem-images", **keys))
        assert "images.s3_secret_key" in str(e.value)


def test_no_endpoint_is_aws_and_the_prefix_is_tidied() -> None:
    loc = S3Location.parse("s3://graphmem-images//a//b/", "")
    assert loc == S3Location("s3.amazonaws.com", True, "graphmem-images", "a/b/")
    assert S3Location.parse("s3://graphmem-images", "http://127.0.0.1:49300").prefix == ""
