"""`markdown`: a folder of Markdown notes with front matter and [[wikilinks]] (basic-memory,
Obsidian).

Each `.md` file is a note, ingested as a document (graphmem.usecases.documents: chunked,
screened, idempotent by content hash; the front matter's `title` is its title). A wikilink
`[[Target]]`, `[[Target|shown text]]` or `[[Target#heading]]` names another note by its file
name or its front-matter title (case-insensitive); it becomes an explicit relation from the
linking note to the linked one. Links to notes not in the folder are counted, not kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from graphmem.errors import InvalidInputError
from graphmem.importers.base import BadRecord, ImportedNote, Record, read_text

WIKILINK = re.compile(r"(?<!!)\[\[([^\]\[|#]+)(?:#[^\]\[|]*)?(?:\|[^\]\[]*)?\]\]")
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)
_TITLE = re.compile(r"^title:\s*['\"]?(.+?)['\"]?\s*$", re.M)
MAX_NOTES = 100_000


def note_name(path: Path, text: str) -> tuple[str, str]:
    """(file name, front-matter title or the file name): the two names a link may use."""
    title = path.stem
    m = _FRONT.match(text)
    if m and (t := _TITLE.search(m.group(1))):
        title = t.group(1).strip()
    return path.stem, title


class MarkdownImporter:
    name = "markdown"
    description = "a folder of Markdown notes: notes as documents, [[wikilinks]] as relations"
    remote = False

    def read(self, location: str) -> Iterator[Record]:
        source = Path(location)
        if not source.is_dir():
            raise InvalidInputError(str(source), "must be a folder of Markdown notes")
        files = sorted(p for p in source.rglob("*.md") if p.is_file() and not _hidden(p, source))
        if len(files) > MAX_NOTES:
            raise InvalidInputError(str(source), f"holds more than {MAX_NOTES} notes")
        for path in files:
            try:
                text = read_text(path)
            except InvalidInputError as e:
                yield BadRecord(str(path.relative_to(source)), "file", e.message)
                continue
            stem, title = note_name(path, text)
            links = list(dict.fromkeys(m.group(1).strip() for m in WIKILINK.finditer(text)))
            yield ImportedNote(path.resolve(), stem, links, title)


def _hidden(path: Path, root: Path) -> bool:
    """Files under .obsidian/, .git/ and the like are the editor's, not notes."""
    return any(part.startswith(".") for part in path.relative_to(root).parts)
