"""`graphmem ingest`, `documents`, `document-delete`, `library` and `search --kinds`: the
document commands on a real embedded store, their output, JSON and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

PAGE = "# Kestrel\n\n## Audit\n\nThe Kestrel audit is due in May; Priya runs it.\n"


def test_ingest_list_search_delete_with_json_and_resume(cli, tmp_path: Path) -> None:
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "kestrel.md").write_text(PAGE, "utf-8")
    dry = json.loads(cli("ingest", str(wiki), "--user", "ann", "--dry-run", "--json")[1])
    assert dry["dry_run"] and dry["outcomes"][0]["action"] == "would_add"
    code, out, _ = cli("ingest", str(wiki), "--user", "ann")
    assert code == 0 and "added:" in out and "stored 1 (1 chunks)" in out
    code, out, _ = cli("ingest", str(wiki), "--user", "ann")
    assert code == 0 and "unchanged:" in out
    listed = json.loads(cli("documents", "--user", "ann", "--json")[1])
    assert listed["count"] == 1 and listed["documents"][0]["title"] == "Kestrel"
    assert cli("documents", "--user", "ben")[1].strip() == "no documents"
    code, out, _ = cli("search", "when is the audit due", "--user", "ann", "--kinds", "document")
    assert code == 0 and "May" in out and "from " in out and "§ Kestrel › Audit" in out
    hits = json.loads(cli("search", "audit", "--user", "ann", "--kinds", "memory", "--json")[1])
    assert hits["hits"] == []
    weighted = json.loads(
        cli("search", "audit", "--user", "ann", "--kind-weights", "document=0.5", "--json")[1]
    )
    assert weighted["hits"][0]["scores"]["kind_weight"] == 0.5
    code, out, _ = cli("document-delete", str(wiki / "kestrel.md"), "--user", "ann")
    assert code == 0 and "deleted 1 chunks" in out
    code, _, err = cli("document-delete", str(wiki / "kestrel.md"), "--user", "ann")
    assert code == 1 and err.startswith("error: source: no document ingested")


def test_a_failed_document_exits_1_and_bad_input_exits_2(cli, tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\x00" * 40)
    (tmp_path / "ok.md").write_text(PAGE, "utf-8")
    code, out, _ = cli("ingest", str(tmp_path / "bad.txt"), str(tmp_path / "ok.md"))
    assert code == 1 and "failed:" in out and "added:" in out
    code, _, err = cli("ingest", str(tmp_path / "missing.md"))
    assert code == 2 and "no such file" in err
    code, _, err = cli("search", "x", "--kinds", "wiki")
    assert code == 2 and err.startswith("error: kinds:")
    code, _, err = cli("ingest", str(tmp_path / "ok.md"), "--library", "no spaces")
    assert code == 2 and err.startswith("error: library:")


def test_library_grant_lets_a_user_read_it(cli, tmp_path: Path) -> None:
    (tmp_path / "kestrel.md").write_text(PAGE, "utf-8")
    assert cli("ingest", str(tmp_path / "kestrel.md"), "--library", "handbook")[0] == 0
    assert "Kestrel" not in cli("search", "Kestrel audit", "--user", "cai")[1]
    code, out, _ = cli("library", "grant", "handbook", "cai")
    assert code == 0 and "cai may read handbook" in out
    assert cli("library", "readers", "handbook")[1].split() == ["cai"]
    out = cli("search", "Kestrel audit", "--user", "cai")[1]
    assert "Kestrel" in out and "(library handbook)" in out
    assert cli("library", "grant", "handbook")[0] == 2  # no user named
    assert cli("library", "revoke", "handbook", "cai")[0] == 0
    assert "Kestrel" not in cli("search", "Kestrel audit", "--user", "cai")[1]
    receipt = json.loads(cli("library", "delete", "handbook", "--json")[1])
    assert receipt["user_id"] == "library:handbook"
    assert cli("documents", "--library", "handbook")[1].strip() == "no documents"


def test_a_url_list_file_and_export_leaves_chunks_out(cli, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(PAGE, "utf-8")
    (tmp_path / "b.txt").write_text("Bravo\n\nBravo audits run every March.\n", "utf-8")
    listing = tmp_path / "sources.txt"
    listing.write_text(f"# my pages\n{tmp_path / 'a.md'}\n\n{tmp_path / 'b.txt'}\n", "utf-8")
    report = json.loads(cli("ingest", "--from-file", str(listing), "--json")[1])
    assert report["documents"] == 2
    assert cli("ingest")[0] == 2  # no source at all
    cli("add", "I prefer window seats")
    out = tmp_path / "export.jsonl"
    code, text, _ = cli("export", str(out))
    assert code == 0 and "2 document chunks left out" in text
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["kind"] for r in rows] == ["memory"]
