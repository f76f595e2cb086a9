"""graphmem.documents: real files of every format written to tmp_path, a real PDF built byte by
byte, and a real HTTP server on 127.0.0.1, read into documents and cut into chunks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.documents import (
    SUPPORTED_SUFFIXES,
    Chunk,
    Document,
    DocumentError,
    Section,
    chunk,
    discover,
    load_bytes,
    load_path,
    load_url,
)
from graphmem.errors import InvalidInputError
from tests.helpers.documents import _Handler, _pdf

MARKDOWN = """---
title: "Credit notes"
tags: [bonds]
---
Before any heading, see [the site](https://example.com/x) and ![logo](logo.png).

# Ratings

Issuer is **rated** _A_ by one *agency*; snake_case_name stays.

## 2024 downgrade

Moody's cut it in ~~May~~ June.

```python
# a comment, not a heading
x = *y*
```

[ref]: https://example.com/ref

## Outlook

Stable.
"""


def _check_chunks(doc: Document, chunks: list[Chunk], max_chars: int) -> None:
    """The invariants every chunking keeps: exact slices, in order, within one section."""
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text and c.text == c.text.strip() and c.text
        assert len(c.text) <= max_chars
        assert c.content_hash == hashlib.sha256(c.text.encode()).hexdigest()
        owner = [s for s in doc.sections if s.start <= c.start and c.end <= s.end]
        assert len(owner) == 1 and owner[0].heading_path == c.heading_path, c
    assert all(a.end <= b.start for a, b in zip(chunks, chunks[1:], strict=False))


def _check_sections(doc: Document) -> None:
    assert doc.sections[0].start == 0 and doc.sections[-1].end == len(doc.text)
    assert all(a.end == b.start for a, b in zip(doc.sections, doc.sections[1:], strict=False))


# --- formats --------------------------------------------------------------------------------


def test_markdown_headings_links_code_and_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    doc = load_path(path)
    assert (doc.uri, doc.format, doc.title) == (str(path.resolve()), "markdown", "Credit notes")
    _check_sections(doc)
    body = {s.heading_path: doc.text[s.start : s.end].strip() for s in doc.sections}
    assert list(body) == [(), ("Ratings",), ("Ratings", "2024 downgrade"), ("Ratings", "Outlook")]
    assert body[()] == "Before any heading, see the site and ."
    assert body[("Ratings",)] == "Issuer is rated A by one agency; snake_case_name stays."
    assert body[("Ratings", "2024 downgrade")] == (
        "Moody's cut it in May June.\n\n```python\n# a comment, not a heading\nx = *y*\n```"
    )
    assert "tags:" not in doc.text and "#" not in doc.text.replace("# a comment", "")
    assert doc.content_hash == hashlib.sha256(doc.text.encode()).hexdigest()


def test_markdown_title_from_h1_or_setext_else_the_file_name(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("intro\n\n# First *Title*\n\ntext\n\n# Second\n", "utf-8")
    (tmp_path / "b.markdown").write_text("Big Title\n=========\n\nSub\n---\n\nbody\n", "utf-8")
    (tmp_path / "c.md").write_text("## only a subheading\n\nbody\n", "utf-8")
    assert load_path(tmp_path / "a.md").title == "First Title"
    setext = load_path(tmp_path / "b.markdown")
    assert setext.title == "Big Title" and setext.text == "body"
    assert setext.sections[0].heading_path == ("Big Title", "Sub")
    assert load_path(tmp_path / "c.md").title == "c.md"


def test_text_is_normalised(tmp_path: Path) -> None:
    raw = "\ufeff  Title line  \r\nCafe\u0301\x07 ok \t\r\n\r\n\r\n\r\n\r\n\r\nafter\x1b\r\n\n"
    (tmp_path / "n.txt").write_bytes(raw.encode("utf-8"))
    doc = load_path(tmp_path / "n.txt")
    assert doc.format == "text" and doc.title == "Title line"
    # NFC, no BOM, \r or control characters, no trailing spaces, at most two blank lines
    assert doc.text == "  Title line\nCaf\u00e9 ok\n\n\nafter"
    assert len(doc.sections) == 1 and doc.sections[0] == Section((), 0, len(doc.text))
    long_first = "x" * 300 + "\nrest"
    (tmp_path / "long.text").write_text(long_first, "utf-8")
    assert load_path(tmp_path / "long.text").title == "x" * 200


HTML = """<!doctype html><html><head><meta charset="iso-8859-1"><title>Caf\xe9 &amp; Co</title>
<style>body { color: red }</style><script>var s = "<p>hidden</p>";</script></head>
<body><header>Site header</header><nav><a href="/">Home</a></nav>
<h1>Main   Title</h1><p>Intro &amp; more &lt;tags&gt; &#8212; caf\xe9.</p>
<div>Block <b>bold</b>   text<br>next line</div>
<h2>Sub</h2><p>Sub body</p><ul><li>one</li><li>two</li></ul>
<aside>aside</aside><footer>foot</footer><noscript>ns</noscript>
<svg><title>icon</title><text>drawn</text></svg><template><p>tpl</p></template>
<pre>  code
    indented</pre>
<h3>Deep</h3><p>deep body</p><h2>Other</h2><p>other body</p></body></html>"""


def test_html_visible_text_sections_entities_and_meta_charset(tmp_path: Path) -> None:
    (tmp_path / "page.htm").write_bytes(HTML.encode("latin-1"))  # not valid UTF-8
    doc = load_path(tmp_path / "page.htm")
    assert doc.format == "html" and doc.title == "Café & Co"
    _check_sections(doc)
    for hidden in ("color", "hidden", "Site header", "Home", "aside", "foot", "ns", "icon"):
        assert hidden not in doc.text
    assert "drawn" not in doc.text and "tpl" not in doc.text and "Main" not in doc.text
    body = {s.heading_path: doc.text[s.start : s.end].strip() for s in doc.sections}
    assert list(body) == [
        ("Main Title",),
        ("Main Title", "Sub"),
        ("Main Title", "Sub", "Deep"),
        ("Main Title", "Other"),
    ]
    assert body[("Main Title",)] == "Intro & more <tags> — café.\n\nBlock bold text\nnext line"
    assert body[("Main Title", "Sub")] == "Sub body\n\none\n\ntwo\n\n  code\n    indented"
    no_title = b"<html><body><h1>Heading &amp; all</h1><p>x</p></body></html>"
    assert load_bytes(no_title, "https://h.example/p", fmt="html").title == "Heading & all"


def test_pdf_text_layer_pages_and_title(tmp_path: Path) -> None:
    pages = [["Quarterly report", "Revenue grew (a lot)."], ["Second page."]]
    (tmp_path / "r.pdf").write_bytes(_pdf(pages, title="Q3 Report"))
    doc = load_path(tmp_path / "r.pdf")
    assert doc.format == "pdf" and doc.title == "Q3 Report"
    assert doc.text == "Quarterly report\nRevenue grew (a lot).\n\nSecond page."
    (tmp_path / "untitled.pdf").write_bytes(_pdf([["First line here", "then more"]]))
    assert load_path(tmp_path / "untitled.pdf").title == "First line here"


def test_pdf_without_text_or_broken_is_a_document_error(tmp_path: Path) -> None:
    (tmp_path / "scan.pdf").write_bytes(_pdf([[], []]))
    with pytest.raises(DocumentError, match=r"scan\.pdf: has no text layer \(scanned\?\); OCR"):
        load_path(tmp_path / "scan.pdf")
    (tmp_path / "junk.pdf").write_bytes(b"%PDF-1.4 not really")
    with pytest.raises(DocumentError, match=r"junk\.pdf: is not a readable PDF"):
        load_path(tmp_path / "junk.pdf")


def test_load_bytes_format_from_fmt_content_type_or_suffix() -> None:
    md = b"# Head\n\nbody"
    assert load_bytes(md, "x.txt", fmt="markdown").format == "markdown"
    assert load_bytes(md, "https://e.example/doc", content_type="text/markdown").format == (
        "markdown"
    )
    assert load_bytes(md, "https://e.example/README.md", content_type="text/plain").format == (
        "markdown"
    )
    assert load_bytes(md, "https://e.example/a.txt", content_type="text/plain").format == "text"
    assert load_bytes(md, "notes.MD").format == "markdown"
    latin = "caf\xe9".encode("latin-1")
    assert load_bytes(latin, "u", content_type="text/plain; charset=ISO-8859-1").text == "café"
    with pytest.raises(DocumentError, match=r"https://e.example/blob: has an unsupported type"):
        load_bytes(md, "https://e.example/blob", content_type="application/octet-stream")
    with pytest.raises(DocumentError, match="unknown format 'docx'"):
        load_bytes(md, "a.md", fmt="docx")


# --- bad inputs -----------------------------------------------------------------------------


def test_bad_paths_raise_document_errors_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "junk.txt").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "zeros.md").write_bytes(b"abc\x00\x00def")
    (tmp_path / "deck.pptx").write_bytes(b"PK")
    (tmp_path / "big.txt").write_text("x" * 100, "utf-8")
    cases = {
        tmp_path / "missing.md": "no such file",
        tmp_path: "is a folder, not a file",
        tmp_path / "junk.txt": "is not UTF-8 text",
        tmp_path / "zeros.md": "is not UTF-8 text",
        tmp_path / "deck.pptx": "has an unsupported suffix '.pptx' (supported: .md,",
    }
    for path, problem in cases.items():
        with pytest.raises(DocumentError) as info:
            load_path(path)
        assert str(info.value).startswith(f"source: {path.resolve()}: {problem}")
        assert isinstance(info.value, InvalidInputError) and info.value.field == "source"
    with pytest.raises(DocumentError, match=r"big\.txt: is larger than the limit of 10 bytes"):
        load_path(tmp_path / "big.txt", max_bytes=10)


# --- chunking -------------------------------------------------------------------------------


def test_chunks_keep_offsets_and_never_cross_headings(tmp_path: Path) -> None:
    paragraphs = "\n\n".join(f"Paragraph {i}. " + "word " * (10 * i) for i in range(1, 10))
    long_para = " ".join(f"Sentence number {i} is here." for i in range(120))
    text = f"# One\n\n{paragraphs}\n\n# Two\n\nshort\n\n## Empty\n\n## Three\n\n{long_para}\n"
    (tmp_path / "long.md").write_text(text, "utf-8")
    doc = load_path(tmp_path / "long.md")
    chunks = chunk(doc, target_chars=300, max_chars=600)
    _check_chunks(doc, chunks, 600)
    paths = [c.heading_path for c in chunks]
    assert ("Two", "Empty") not in paths and paths.count(("Two",)) == 1
    assert [c.text for c in chunks if c.heading_path == ("Two",)] == ["short"]
    ones = [c for c in chunks if c.heading_path == ("One",)]
    # whole paragraphs: every chunk of section One starts at a paragraph
    assert all(c.text.startswith("Paragraph ") for c in ones)
    assert all(len(c.text) <= 300 or "\n\n" not in c.text for c in ones)
    threes = [c for c in chunks if c.heading_path == ("Two", "Three")]
    assert len(threes) > 2 and all(c.text.endswith(".") for c in threes)  # cut at sentences
    assert " ".join(c.text for c in threes) == long_para


def test_chunk_packs_paragraphs_to_the_target_and_merges_a_tiny_tail() -> None:
    text = "\n\n".join(["a" * 100, "b" * 100, "c" * 200, "d" * 30])
    doc = load_bytes(text.encode(), "p.txt")
    packed = chunk(doc, target_chars=220, max_chars=400)
    assert [len(c.text) for c in packed] == [202, 232]  # a+b; then c, with the tiny d merged
    unmerged = chunk(doc, target_chars=220, max_chars=225)
    assert [len(c.text) for c in unmerged] == [202, 200, 30]  # merging would pass max_chars
    assert [len(c.text) for c in chunk(doc, target_chars=240)] == [202, 232]  # c+d packed


def test_chunk_splits_overlong_sentences_preferring_whitespace() -> None:
    doc = load_bytes(("seven77 " * 300).encode(), "w.txt")  # 8 chars: 150 falls mid-word
    chunks = chunk(doc, target_chars=100, max_chars=150)
    _check_chunks(doc, chunks, 150)
    assert all(set(c.text.split()) == {"seven77"} for c in chunks)  # cut between words
    assert " ".join(c.text for c in chunks) == doc.text


def test_chinese_text_is_cut_at_sentence_ends_and_hard_limits() -> None:
    sentences = "今天天气很好，我们去公园散步。你想一起去吗？好的！" * 40
    no_punctuation = "这是一段没有任何标点符号的很长的中文文字" * 40
    doc = load_bytes(f"{sentences}\n\n{no_punctuation}".encode(), "zh.txt")
    chunks = chunk(doc, target_chars=200, max_chars=400)
    _check_chunks(doc, chunks, 400)
    first = [c for c in chunks if c.end <= len(sentences)]
    assert len(first) > 2 and all(c.text[-1] in "。？！" for c in first)
    assert "".join(c.text for c in chunks) == doc.text.replace("\n\n", "")


def test_chunk_rejects_bad_sizes() -> None:
    doc = load_bytes(b"text", "t.txt")
    with pytest.raises(ValueError, match="target_chars"):
        chunk(doc, target_chars=49)
    with pytest.raises(ValueError, match="max_chars"):
        chunk(doc, target_chars=500, max_chars=499)
    assert chunk(load_bytes(b"", "empty.txt")) == []


_WORDS = st.sampled_from(["alpha", "beta", "货币", "政策。", "end.", "why?", "\n", "\n\n"])


@settings(max_examples=60, deadline=None)
@given(
    blocks=st.lists(
        st.tuples(st.integers(0, 3), st.lists(_WORDS, max_size=300).map(" ".join)), max_size=6
    ),
    target=st.integers(50, 300),
    extra=st.integers(0, 300),
)
def test_chunk_invariants_hold_for_any_markdown(
    blocks: list[tuple[int, str]], target: int, extra: int
) -> None:
    source = "\n\n".join(("#" * level + " H\n\n" if level else "") + body for level, body in blocks)
    doc = load_bytes(source.encode(), "any.md")
    _check_sections(doc)
    chunks = chunk(doc, target_chars=target, max_chars=target + extra)
    _check_chunks(doc, chunks, target + extra)
    # nothing is lost: every non-space character of the text is in some chunk
    assert sum(len("".join(c.text.split())) for c in chunks) == len("".join(doc.text.split()))


# --- folders and URLs -----------------------------------------------------------------------


def test_discover_skips_hidden_unsupported_and_links_out(tmp_path: Path) -> None:
    root, outside = tmp_path / "docs", tmp_path / "outside"
    for rel in ["a.md", "b/c.TXT", "b/d/e.html", "f.pdf", "g.docx", ".hidden.md", ".git/x.md"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x", "utf-8")
    outside.mkdir()
    (outside / "secret.md").write_text("x", "utf-8")
    (root / "link-out.md").symlink_to(outside / "secret.md")
    (root / "dir-out").symlink_to(outside, target_is_directory=True)
    (root / "link-in.md").symlink_to(root / "a.md")
    found = [p.relative_to(root).as_posix() for p in discover(root)]
    assert found == ["a.md", "b/c.TXT", "b/d/e.html", "f.pdf", "link-in.md"]
    assert set(SUPPORTED_SUFFIXES) >= {Path(p).suffix.lower() for p in found}
    with pytest.raises(DocumentError, match=r"a\.md: is not a folder"):
        discover(root / "a.md")
    with pytest.raises(DocumentError, match="nope: no such folder"):
        discover(tmp_path / "nope")


def test_load_url_from_a_local_server(page_server: str) -> None:
    doc = load_url(f"{page_server}/page")
    assert (doc.uri, doc.format, doc.title, doc.text) == (
        f"{page_server}/page",
        "html",
        "Served",
        "café & tea",
    )
    assert load_url(f"{page_server}/moved").text == "café & tea"  # redirect followed
    assert set(_Handler.agents) == {"graphmem"}
    notes = load_url(f"{page_server}/notes.md")
    assert notes.format == "markdown" and notes.sections[0].heading_path == ("Notes",)
    with pytest.raises(DocumentError, match=rf"{page_server}/missing: returned HTTP 404 Not Found"):
        load_url(f"{page_server}/missing")
    with pytest.raises(DocumentError, match=r"big\.txt: is larger than the limit of 1,000 bytes"):
        load_url(f"{page_server}/big.txt", max_bytes=1000)
    with pytest.raises(DocumentError, match=r"/slow: did not answer within 0\.3 s"):
        load_url(f"{page_server}/slow", timeout=0.3)


def test_load_url_refuses_other_schemes_and_unreachable_hosts() -> None:
    for url in ("file:///etc/passwd", "ftp://example.com/a.md", "notes.md"):
        with pytest.raises(DocumentError, match="is not an http or https URL"):
            load_url(url)
    with pytest.raises(DocumentError, match="could not be fetched"):
        load_url("http://127.0.0.1:1/nothing-listens-here", timeout=5)
