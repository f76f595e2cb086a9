"""Secrets never reach a file in clear, from any entry point; the vault's other doors.

The default PII policy vaults every secret (graphmem.guard.policy): a password written through
MCP, the CLI, an import or an ingested document must leave no byte of its value in any file
under the data directory (records, full-text index, vectors, write-ahead logs, the vault's own
rows), in a log line, an audit row or an export, while its owner reads it back exactly with
`memory_reveal`, `graphmem reveal` or `client.reveal`. The values are random for each run, so
a hit in a file is the value and not a coincidence of the fixture.
"""

from __future__ import annotations

import json
import logging
import random
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import MemoryService, Settings
from graphmem.domain.visibility import Viewer
from graphmem.embedding import Embedder
from graphmem.guard.checksums import IBAN_LENGTHS
from graphmem.guard.vault import VaultKeyError
from graphmem.mcp.server import create_server
from graphmem.stores import open_working
from tests.helpers.mcp import ok

rng = random.Random()


def _digits(n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _letters(n: int) -> str:
    return "".join(rng.choice(string.ascii_letters) for _ in range(n))


def _luhn_card() -> str:
    body = "4" + _digits(14)
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:  # doubled: the check digit will sit to its right
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def _cn_id() -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    body = "110105" + str(rng.randint(1950, 2005)) + f"{rng.randint(1, 12):02d}"
    body += f"{rng.randint(1, 28):02d}" + _digits(3)
    return body + "10X98765432"[sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11]


def _iban() -> str:
    bban = _digits(IBAN_LENGTHS["DE"] - 4)
    rearranged = bban + "1314" + "00"  # D=13, E=14, check digits 00
    return f"DE{98 - int(rearranged) % 97:02d}{bban}"


def _ssn() -> str:
    return f"{rng.randint(100, 665)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"


def secrets_table() -> list[tuple[str, str, str]]:
    """(type, text, value) for each secret type: fresh values, recognised by the default
    policy, long enough that finding one in a file cannot be chance."""
    password = _letters(6) + _digits(3) + "!" + _letters(4)
    key = "sk-proj-" + _letters(12) + _digits(12)
    passport = "X" + _digits(8)
    licence = "D" + _digits(9)
    account = "000" + _digits(9)
    card = _luhn_card()
    cn_id = _cn_id()
    iban = _iban()
    ssn = _ssn()
    return [
        ("password", f"The lab wifi password is {password}", password),
        ("api_key", f"Deploy with key {key}", key),
        ("passport", f"My passport number is {passport}", passport),
        ("driver_license", f"driver's license number {licence}", licence),
        ("bank_account", f"checking account number {account}", account),
        ("bank_card", f"Use the card {card} for groceries", card),
        ("cn_id", f"我的身份证号码是{cn_id}", cn_id),
        ("iban", f"Rent goes to IBAN {iban}", iban),
        ("ssn", f"My SSN is {ssn}", ssn),
    ]


def _needles(value: str) -> list[bytes]:
    forms = {value, value.lower(), value.replace("-", ""), value.replace("-", " ")}
    return [f.encode(enc) for f in forms for enc in ("utf-8", "utf-16-le")]


def files_holding(data_dir: Path, value: str) -> list[str]:
    needles = _needles(value)
    found = []
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        blob = path.read_bytes()
        if any(n in blob or n in blob.lower() for n in needles):
            found.append(str(path.relative_to(data_dir)))
    return found


def test_no_secret_reaches_a_file_log_audit_or_export_from_any_entry_point(
    tmp_path: Path,
    embedder: Embedder,
    cli,  # noqa: ANN001 - the conftest's in-process `graphmem` runner, on tmp_path / "data"
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every log line of the run: what the CLI printed at DEBUG, and the service's records
    monkeypatch.setenv("GRAPHMEM_LOG_LEVEL", "DEBUG")
    printed: list[str] = []
    data = tmp_path / "data"
    table = secrets_table()
    by_entry: dict[str, list[tuple[str, str, str]]] = {
        "cli": table[0:3],
        "import": table[3:5],
        "mcp": table[5:7],
        "document": table[7:9],
    }
    # the CLI and an import each open the store themselves, one after the other
    for _, text, _ in by_entry["cli"]:
        code, _, err = cli("add", text, "--user", "ann")
        assert code == 0, err
        printed.append(err)
    rows = tmp_path / "in.jsonl"
    rows.write_text("".join(json.dumps({"content": t}) + "\n" for _, t, _ in by_entry["import"]))
    code, out, err = cli("import", str(rows), "--user", "ann", "-q")
    assert code == 0 and "imported 2" in out, err
    printed.append(err)
    rows.unlink()  # the input file is the user's own; only what graphmem wrote is scanned

    # the CLI set up its own root handler; the service below logs to the test's capture
    logging.getLogger().addHandler(caplog.handler)
    caplog.set_level(logging.DEBUG)
    svc = MemoryService(Settings(_env_file=None, data_dir=data), embedder=embedder)
    srv = create_server(svc, working=open_working("memory"), default_user="ann")
    for _, text, _ in by_entry["mcp"]:
        assert ok(srv, "memory_write", {"content": text, "memory_type": "fact"})["memory_id"]
    doc = tmp_path / "accounts.md"
    doc.write_text(
        "# Household accounts\n\n" + "\n\n".join(t + "." for _, t, _ in by_entry["document"])
    )
    report = svc.ingest("ann", doc)
    assert report.to_dict()["chunks"] >= 1, report.to_dict()
    doc.unlink()

    stored = svc.list("ann", viewer=Viewer.OPERATOR)
    listed = json.dumps([m.to_dict() for m in stored], ensure_ascii=False)
    for typ, _, value in table:
        assert value not in listed, typ
        assert f"[secret:{typ}#" in listed, typ
    # the owner reads each back exactly, over MCP; the audit rows name refs, never values
    revealed = {}
    for m in stored:
        for s in ok(srv, "memory_reveal", {"memory_id": m.id})["secrets"]:
            revealed[s["type"]] = s["value"]
    assert revealed == {typ: value for typ, _, value in table}
    audit = json.dumps(svc.records.audit_rows("ann", limit=1000), ensure_ascii=False, default=str)
    svc.close()

    code, _, err = cli("export", str(tmp_path / "export.jsonl"), "--user", "ann")
    assert code == 0, err
    printed.append(err)
    exported = (tmp_path / "export.jsonl").read_text(encoding="utf-8")
    for typ, _, _ in table[:7]:  # the memories; document chunks are not exported
        assert f"[secret:{typ}#" in exported, typ
    logged = "\n".join([*printed, *(r.getMessage() for r in caplog.records)])
    assert "DEBUG" in logged and caplog.records  # the run did log: the check reads something
    for typ, _, value in table:
        assert files_holding(data, value) == [], typ
        for name, blob in (("audit", audit), ("export", exported), ("logs", logged)):
            assert value not in blob, (typ, name)


def test_cli_reveal_and_key_rotation(cli, tmp_path: Path) -> None:  # noqa: ANN001
    password = _letters(8) + _digits(4)
    cli("add", f"Garage door passcode: {password}", "--user", "ann")
    code, out, _ = cli("list", "--user", "ann", "--json")
    (mem,) = json.loads(out)["memories"]
    assert password not in json.dumps(mem)

    code, out, _ = cli("reveal", mem["id"], "--user", "ann")
    assert code == 0 and out.split() == ["[secret:password#1]", "password", password]
    code, _, err = cli("reveal", mem["id"], "--user", "bob")
    assert code == 1 and "no memory" in err and password not in err
    code, _, err = cli("reveal", mem["id"], "--user", "ann", "--ref", "not a ref")
    assert code == 2 and "refs" in err

    key_file = tmp_path / "data" / "vault.key"
    old_key = key_file.read_text()
    code, out, err = cli("vault", "rotate-key", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["rewrapped"] == 1 and report["key_id"] != report["previous_key_id"]
    assert Path(report["previous_key_file"]).read_text() == old_key
    assert key_file.read_text() != old_key and key_file.stat().st_mode & 0o777 == 0o600
    code, out, _ = cli("reveal", mem["id"], "--user", "ann", "--json")
    assert json.loads(out)["secrets"][0]["value"] == password

    # the old key no longer opens the data keys: a clear error naming both key ids, no value
    key_file.write_text(old_key)
    code, _, err = cli("reveal", mem["id"], "--user", "ann")
    assert code != 0 and report["key_id"] in err and report["previous_key_id"] in err
    assert "Traceback" not in err and password not in err


def test_rotation_refused_with_the_key_in_the_environment(tmp_path: Path) -> None:
    import base64
    import os

    from graphmem.guard.vault import rotate_store_key

    svc = MemoryService(
        Settings(
            _env_file=None,
            data_dir=tmp_path,
            vault={"key": base64.b64encode(os.urandom(32)).decode()},
        )
    )
    m = svc.write_many("ann", [{"content": "The alarm PIN is 4812"}])[0]
    assert "4812" not in m.content
    with pytest.raises(VaultKeyError, match="GRAPHMEM_VAULT_KEY"):
        svc.rotate_vault_key()
    with pytest.raises(VaultKeyError):
        rotate_store_key(svc.records, None, tmp_path / "missing.key")
    assert not (tmp_path / "vault.key").exists()  # the environment's key is the only one
    assert svc.reveal("ann", m.id)["secrets"][0]["value"] == "4812"
    svc.close()


@st.composite
def planted(draw: st.DrawFn) -> tuple[str, str]:
    value = draw(
        st.text(alphabet=string.ascii_letters + string.digits, min_size=4, max_size=10)
    ) + draw(st.sampled_from("!#%&*+-"))
    value += draw(st.text(alphabet=string.digits, min_size=2, max_size=4))
    cue = draw(
        st.sampled_from(
            [
                "The wifi password is {}",
                "password: {}",
                "pwd={}",
                "WiFi密码：{}",
                "公司系统登录：zhangwei / {}",
                "HR portal login: jdoe / {}",
            ]
        )
    )
    before = draw(st.sampled_from(["", "Note: ", "记住，", "For the cabin, "]))
    after = draw(st.sampled_from(["", " (new since May)", "。", ", ask Joe first"]))
    return before + cue.format(value) + after, value


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=planted())
def test_a_planted_password_is_only_ever_revealed(
    vault_svc: MemoryService, case: tuple[str, str]
) -> None:
    text, value = case
    m = vault_svc.write_many("pat", [{"content": text}])[0]
    assert value not in m.content and "[secret:password#" in m.content
    seen = [
        json.dumps(m.to_dict(), ensure_ascii=False),
        json.dumps([h.to_dict() for h in vault_svc.search("pat", text, 5).hits], default=str),
        json.dumps(vault_svc.records.audit_rows("pat", limit=5), default=str),
    ]
    assert all(value not in s for s in seen)
    assert [s["value"] for s in vault_svc.reveal("pat", m.id)["secrets"]] == [value]


@pytest.fixture(scope="module")
def vault_svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> MemoryService:
    svc = MemoryService(
        Settings(_env_file=None, data_dir=tmp_path_factory.mktemp("vault")), embedder=embedder
    )
    yield svc
    svc.close()


def test_export_keeps_contact_details_unless_redacted(cli, tmp_path: Path) -> None:  # noqa: ANN001
    text = "Our plumber can be reached at 415-555-0134 or joe@rivera-plumbing.com"
    assert (
        cli("add", text, "--user", "ann", "--metadata", '{"cc": "joe@rivera-plumbing.com"}')[0] == 0
    )
    code, plain, _ = cli("export", "--user", "ann")
    assert code == 0 and json.loads(plain)["content"] == text
    code, out, _ = cli("export", "--user", "ann", "--redact")
    row = json.loads(out)
    assert code == 0 and "415-555-0134" not in out and "joe@rivera-plumbing.com" not in out
    assert row["content"] == "Our plumber can be reached at [PHONE] or [EMAIL]"
    assert row["metadata"] == {"cc": "[EMAIL]"}


def test_documents_keep_published_contact_lines(tmp_path: Path, embedder: Embedder) -> None:
    """A handbook's escalation line and a supplier's hotline are what the document is for: the
    ingested chunks keep them and answer the question; a password in the same page is vaulted."""
    svc = MemoryService(Settings(_env_file=None, data_dir=tmp_path / "d"), embedder=embedder)
    page = tmp_path / "handbook.md"
    page.write_text(
        "# On-call handbook\n\n## Escalation\n\n"
        "If the on-call engineer doesn't answer within 15 minutes, call the escalation line"
        " +1 415-555-0199 or write to escalations@northwind-ops.com.\n\n"
        "## Suppliers\n\nThe cooling supplier's service hotline is 400-810-8888.\n\n"
        "## Shared accounts\n\nThe status page admin password is Gr4nite-Owl-77.\n"
    )
    svc.ingest("ops", page)
    hits = svc.search("ops", "What number do I call if the on-call engineer doesn't answer?", 3)
    text = " ".join(h.memory.content for h in hits.hits)
    assert "415-555-0199" in text and "escalations@northwind-ops.com" in text
    chunks = " ".join(m.content for m in svc.list("ops", viewer=Viewer.OPERATOR))
    assert "400-810-8888" in chunks
    assert "Gr4nite-Owl-77" not in chunks and "[secret:password#1]" in chunks
    svc.close()
