"""The vault cycle on the embedded store: a secret is vaulted on write, read back exactly by
its owner only, and shredded with the user's data key when the user is erased."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphmem.embedding import Embedder
from graphmem.errors import NotFoundError
from graphmem.service.facade import MemoryService
from graphmem.settings import Settings

PASSWORD = "Tr0ub4dorX3"


@pytest.fixture
def svc(tmp_path: Path) -> MemoryService:
    return MemoryService(Settings(_env_file=None, data_dir=tmp_path))


def test_vault_write_reveal_erase(svc: MemoryService, tmp_path: Path) -> None:
    cycle(svc, tmp_path)


@pytest.mark.services
def test_vault_write_reveal_erase_on_mariadb(
    tmp_path: Path, mysql_url: str, embedder: Embedder
) -> None:
    settings = Settings(
        _env_file=None, data_dir=tmp_path, records={"backend": "mysql", "mysql_url": mysql_url}
    )
    svc = MemoryService(settings, embedder=embedder)
    assert type(svc.records).__name__ == "MySQLRecords"
    cycle(svc, tmp_path)
    svc.close()


def cycle(svc: MemoryService, tmp_path: Path) -> None:
    """Vaulted on write, revealed to its owner only, shredded with the user: no key row, no
    secret row left."""
    m = svc.write_many(
        "ann", [{"content": f"My wifi password is {PASSWORD}; Joe is at 13812345678"}]
    )[0]
    assert PASSWORD not in m.content and "[secret:password#1]" in m.content
    assert "13812345678" in m.content  # contact details are kept by default
    got = svc.reveal("ann", m.id)
    assert got["secrets"] == [{"ref": "[secret:password#1]", "type": "password", "value": PASSWORD}]
    with pytest.raises(NotFoundError):
        svc.reveal("bob", m.id)
    assert os.stat(tmp_path / "vault.key").st_mode & 0o777 == 0o600
    receipt = svc.forget_user("ann")
    assert receipt.to_dict()["vault"] == "data key destroyed (1 secrets shredded)"
    assert receipt.verified
    assert svc.records.vault_key("ann") is None
    assert svc.records.vault_secrets("ann", m.id) == []
