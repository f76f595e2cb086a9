"""The documents half of MemoryService: ingest, list and delete documents, share libraries.

Kept apart from graphmem.service only for size; MemoryService inherits it, so callers see
one API (`svc.ingest(...)`, `svc.search(..., kinds=...)`).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from pathlib import Path
from urllib.request import OpenerDirector

from graphmem.context import Context
from graphmem.documents import Document
from graphmem.domain.model import check_user
from graphmem.errors import DocumentNotFoundError
from graphmem.usecases import documents, libraries
from graphmem.usecases.documents import DocumentSource, IngestReport, Progress
from graphmem.usecases.erase import ErasureReceipt


class DocumentsAPI:
    context: Context

    def _owner(self, user_id: str, library: str | None) -> str:
        return libraries.tenant(library) if library else check_user(user_id)

    def ingest(
        self,
        user_id: str,
        sources: Iterable[DocumentSource] | DocumentSource,
        *,
        library: str | None = None,
        dry_run: bool = False,
        progress: Progress | None = None,
        checkpoint: Path | None = None,
        target_chars: int | None = None,
        max_chars: int | None = None,
        tool: str | None = None,
        opener: OpenerDirector | None = None,
    ) -> IngestReport:
        """Ingest files, folders (every .md, .txt, .html, .pdf under them) and http(s) URLs
        as documents of `user_id` (private), or of the shared `library`. Idempotent: an
        unchanged document is skipped by its content hash, a changed one replaces its chunks
        (the old ones kept as history). See graphmem.usecases.documents."""
        if isinstance(sources, (str, Path, Document)):
            sources = [sources]
        return documents.ingest(
            self.context,
            self._owner(user_id, library),
            sources,
            dry_run=dry_run,
            progress=progress,
            checkpoint=checkpoint,
            target_chars=target_chars,
            max_chars=max_chars,
            tool=tool,
            opener=opener,
        )

    def documents(self, user_id: str, *, library: str | None = None) -> builtins.list[dict]:
        """The current documents of the user (or of `library`), one entry per source."""
        return documents.list_documents(self.context, self._owner(user_id, library))

    def delete_document(
        self, user_id: str, source: str, *, library: str | None = None
    ) -> builtins.list[str]:
        """Delete a document, by the path or URL it was ingested from, from every store;
        returns the ids of the chunks deleted (history included)."""
        deleted = documents.delete_document(self.context, self._owner(user_id, library), source)
        if not deleted:
            raise DocumentNotFoundError(source)
        return deleted

    def grant_library(self, library: str, user_id: str) -> bool:
        """Let `user_id`'s searches read the documents of `library`; True if new."""
        return libraries.grant(self.context, library, check_user(user_id))

    def revoke_library(self, library: str, user_id: str) -> bool:
        """Take that access back; True if there was one."""
        return libraries.revoke(self.context, library, check_user(user_id))

    def libraries(self, user_id: str) -> builtins.list[str]:
        """The libraries `user_id` may read."""
        ids = self.context.records.libraries_of(check_user(user_id))
        return [n for n in (libraries.name_of(i) for i in ids) if n]

    def library_readers(self, library: str) -> builtins.list[str]:
        return self.context.records.library_readers(libraries.tenant(library))

    def delete_library(self, library: str, *, requested_by: str = "operator") -> ErasureReceipt:
        """Erase a library: its documents from every store and every grant to it."""
        from graphmem.usecases.erase import erase_user

        return erase_user(self.context, libraries.tenant(library), requested_by)
