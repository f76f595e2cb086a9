-- graphmem canonical schema, SQLite (the embedded default). Equivalent to mysql.sql (init.sql):
-- same tables, columns, nullability and keys; tests/stores/test_schema.py compares them.
-- memories_fts is SQLite's counterpart of MySQL's FULLTEXT index on memories.search_text.

PRAGMA journal_mode = WAL;

-- doc_id doubles as the write order (graphmem.write_order): a new row's doc_id is larger than
-- every stored one, so (created_at, doc_id) orders a user's memories, equal timestamps included.
CREATE TABLE IF NOT EXISTS memories (
  doc_id          INTEGER PRIMARY KEY,
  id              TEXT    NOT NULL UNIQUE,
  user_id         TEXT    NOT NULL,
  session_id      TEXT    NULL,
  content         TEXT    NOT NULL,
  summary         TEXT    NOT NULL DEFAULT '',
  search_text     TEXT    NOT NULL,
  memory_type     TEXT    NOT NULL,
  source          TEXT    NOT NULL DEFAULT 'user',
  confidence      REAL    NOT NULL DEFAULT 1.0,
  embedding_id    TEXT    NULL,
  metadata        TEXT    NULL,
  access_count    INTEGER NOT NULL DEFAULT 0,
  last_access_at  TEXT    NULL,
  decay_score     REAL    NOT NULL DEFAULT 1.0,
  status          TEXT    NOT NULL DEFAULT 'active',
  expires_at      TEXT    NULL,
  created_at      TEXT    NOT NULL,
  updated_at      TEXT    NOT NULL,
  valid_from      TEXT    NULL,
  valid_to        TEXT    NULL,
  slot            TEXT    NULL,
  agent_id        TEXT    NULL,
  run_id          TEXT    NULL,
  kind            TEXT    NOT NULL DEFAULT 'memory'
);
CREATE INDEX IF NOT EXISTS ix_memories_user_status_created ON memories (user_id, status, created_at);
CREATE INDEX IF NOT EXISTS ix_memories_user_type ON memories (user_id, memory_type);
CREATE INDEX IF NOT EXISTS ix_memories_expires ON memories (expires_at);
CREATE INDEX IF NOT EXISTS ix_memories_user_slot ON memories (user_id, slot);
CREATE INDEX IF NOT EXISTS ix_memories_user_session_created ON memories (user_id, session_id, created_at);
CREATE INDEX IF NOT EXISTS ix_memories_user_agent_created ON memories (user_id, agent_id, created_at);
-- The two other orders of a memory list (graphmem.stores.records.listing): a page sorted by
-- access count or by decay walks one of these in order, not a sort of every row of the user.
-- They lead with the user alone: as (user_id, status, x) they tied in SQLite's planner with
-- (user_id, status, created_at) for a list of several statuses sorted by time (the timeline),
-- and the narrower one won, which sorted every row of the user (80 ms at 100,000 memories).
CREATE INDEX IF NOT EXISTS ix_memories_user_accessed ON memories (user_id, access_count);
CREATE INDEX IF NOT EXISTS ix_memories_user_decay ON memories (user_id, decay_score);

-- fts:begin (graphmem.stores.records.migrate runs these statements again when it replaces an
-- older full-text index, so they must stay idempotent)
-- Each user's postings are one contiguous rowid range: a memory's full-text rowid is its
-- user's number (memories_fts_owner) shifted left by 36 bits, plus its doc_id, and a search
-- matches with `rowid BETWEEN` that user's range, so it never walks another tenant's postings.
-- The table is contentless: the text is read from memories, joined on the low 36 bits.
CREATE TABLE IF NOT EXISTS memories_fts_owner (
  num      INTEGER PRIMARY KEY,
  user_id  TEXT    NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  search_text, content='', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS memories_fts_ai AFTER INSERT ON memories BEGIN
  INSERT OR IGNORE INTO memories_fts_owner (user_id) VALUES (new.user_id);
  INSERT INTO memories_fts (rowid, search_text)
  SELECT (num << 36) | new.doc_id, new.search_text FROM memories_fts_owner
  WHERE user_id = new.user_id;
END;
-- A user's number is freed with their last memory, so an erased user leaves no row behind.
CREATE TRIGGER IF NOT EXISTS memories_fts_ad AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, search_text)
  SELECT 'delete', (num << 36) | old.doc_id, old.search_text FROM memories_fts_owner
  WHERE user_id = old.user_id;
  DELETE FROM memories_fts_owner WHERE user_id = old.user_id
  AND NOT EXISTS (SELECT 1 FROM memories WHERE user_id = old.user_id);
END;
CREATE TRIGGER IF NOT EXISTS memories_fts_au AFTER UPDATE OF search_text ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, search_text)
  SELECT 'delete', (num << 36) | old.doc_id, old.search_text FROM memories_fts_owner
  WHERE user_id = old.user_id;
  INSERT INTO memories_fts (rowid, search_text)
  SELECT (num << 36) | new.doc_id, new.search_text FROM memories_fts_owner
  WHERE user_id = new.user_id;
END;
-- fts:end

CREATE TABLE IF NOT EXISTS memory_relations (
  id                INTEGER PRIMARY KEY,
  user_id           TEXT    NOT NULL,
  source_memory_id  TEXT    NOT NULL,
  target_memory_id  TEXT    NOT NULL,
  relation_type     TEXT    NOT NULL,
  strength          REAL    NOT NULL DEFAULT 1.0,
  created_at        TEXT    NOT NULL,
  valid_from        TEXT    NULL,
  valid_to          TEXT    NULL,
  UNIQUE (source_memory_id, target_memory_id, relation_type)
);
-- Graph expansion reads each memory's strongest relations in its own order (edge_order: strength
-- descending, the other end, the type), one index range per side stopped after a few rows
-- (graph_rows.relation_rows). The target side's index also serves every lookup by target.
DROP INDEX IF EXISTS ix_relations_target;
CREATE INDEX IF NOT EXISTS ix_relations_source_rank
  ON memory_relations (source_memory_id, strength DESC, target_memory_id, relation_type);
CREATE INDEX IF NOT EXISTS ix_relations_target_rank
  ON memory_relations (target_memory_id, strength DESC, source_memory_id, relation_type);
CREATE INDEX IF NOT EXISTS ix_relations_user ON memory_relations (user_id);

CREATE TABLE IF NOT EXISTS entities (
  id              INTEGER PRIMARY KEY,
  user_id         TEXT    NOT NULL,
  name            TEXT    NOT NULL,
  normalized_name TEXT    NOT NULL,
  entity_type     TEXT    NOT NULL DEFAULT 'thing',
  created_at      TEXT    NOT NULL,
  UNIQUE (user_id, normalized_name, entity_type)
);

CREATE TABLE IF NOT EXISTS memory_entities (
  memory_id  TEXT    NOT NULL,
  entity_id  INTEGER NOT NULL,
  user_id    TEXT    NOT NULL,
  PRIMARY KEY (memory_id, entity_id)
);
CREATE INDEX IF NOT EXISTS ix_memory_entities_entity ON memory_entities (entity_id);
CREATE INDEX IF NOT EXISTS ix_memory_entities_user ON memory_entities (user_id);

-- Each user's rows in the three graph tables, kept by triggers in the transaction that writes
-- them (graph_rows.graph_counts reads them): counting them took COUNT(*) over the user's index
-- entries on every memory_health and every Health page of the inspector, 170-490 ms for the
-- 1.65 million relations of 100,000 memories. A count that reaches 0 is deleted, so an erased
-- user leaves no row here. A store made before this table is counted once when it is opened
-- (migrate.sqlite_count_graph_rows).
-- counts:begin (migrate.py runs these lines on a store made before them)
CREATE TABLE IF NOT EXISTS graph_row_counts (
  user_id  TEXT    NOT NULL,
  tbl      TEXT    NOT NULL,
  n        INTEGER NOT NULL,
  PRIMARY KEY (user_id, tbl)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS memory_relations_count_ai AFTER INSERT ON memory_relations BEGIN
  INSERT INTO graph_row_counts (user_id, tbl, n) VALUES (new.user_id, 'memory_relations', 1)
    ON CONFLICT (user_id, tbl) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS memory_relations_count_ad AFTER DELETE ON memory_relations BEGIN
  UPDATE graph_row_counts SET n = n - 1 WHERE user_id = old.user_id AND tbl = 'memory_relations';
  DELETE FROM graph_row_counts WHERE user_id = old.user_id AND tbl = 'memory_relations' AND n <= 0;
END;
CREATE TRIGGER IF NOT EXISTS entities_count_ai AFTER INSERT ON entities BEGIN
  INSERT INTO graph_row_counts (user_id, tbl, n) VALUES (new.user_id, 'entities', 1)
    ON CONFLICT (user_id, tbl) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS entities_count_ad AFTER DELETE ON entities BEGIN
  UPDATE graph_row_counts SET n = n - 1 WHERE user_id = old.user_id AND tbl = 'entities';
  DELETE FROM graph_row_counts WHERE user_id = old.user_id AND tbl = 'entities' AND n <= 0;
END;
CREATE TRIGGER IF NOT EXISTS memory_entities_count_ai AFTER INSERT ON memory_entities BEGIN
  INSERT INTO graph_row_counts (user_id, tbl, n) VALUES (new.user_id, 'memory_entities', 1)
    ON CONFLICT (user_id, tbl) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS memory_entities_count_ad AFTER DELETE ON memory_entities BEGIN
  UPDATE graph_row_counts SET n = n - 1 WHERE user_id = old.user_id AND tbl = 'memory_entities';
  DELETE FROM graph_row_counts WHERE user_id = old.user_id AND tbl = 'memory_entities' AND n <= 0;
END;
-- counts:end

-- Each memory's top-level scalar metadata values, one row per key, kept by triggers in the
-- transaction that writes the memory (derived from memories.metadata, as the full-text index
-- is from search_text): a memory list filtered by metadata reads the few matching rows here
-- instead of the JSON of every memory of the user (graphmem.stores.records.sqlite_meta; 150-
-- 230 ms at 100,000 memories). `kind` keeps JSON's typing apart: 's' text, 'n' a number
-- (integer or real: 1 matches 1.0), 'b' a boolean (value 1 or 0); `meta_value` has no declared
-- type, so no affinity turns the text "7" into the number 7. Deleting a memory deletes its
-- rows, so an erased user leaves none. A store made before is filled once when it is opened
-- (migrate.sqlite_index_metadata).
-- meta:begin (migrate.py runs these lines on a store made before them)
CREATE TABLE IF NOT EXISTS memory_meta (
  user_id     TEXT    NOT NULL,
  meta_key    TEXT    NOT NULL,
  kind        TEXT    NOT NULL,
  meta_value          NOT NULL,
  doc_id      INTEGER NOT NULL,
  PRIMARY KEY (user_id, meta_key, kind, meta_value, doc_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ix_memory_meta_doc ON memory_meta (doc_id);
CREATE TRIGGER IF NOT EXISTS memory_meta_ai AFTER INSERT ON memories BEGIN
  INSERT OR IGNORE INTO memory_meta (user_id, meta_key, kind, meta_value, doc_id)
  SELECT new.user_id, j.key, CASE j.type WHEN 'text' THEN 's' WHEN 'integer' THEN 'n'
    WHEN 'real' THEN 'n' ELSE 'b' END, j.atom, new.doc_id
  FROM json_each(CASE WHEN json_valid(new.metadata) AND json_type(new.metadata) = 'object'
    THEN new.metadata END) j
  WHERE j.type IN ('text', 'integer', 'real', 'true', 'false');
END;
CREATE TRIGGER IF NOT EXISTS memory_meta_ad AFTER DELETE ON memories BEGIN
  DELETE FROM memory_meta WHERE doc_id = old.doc_id;
END;
CREATE TRIGGER IF NOT EXISTS memory_meta_au AFTER UPDATE OF metadata, user_id ON memories BEGIN
  DELETE FROM memory_meta WHERE doc_id = old.doc_id;
  INSERT OR IGNORE INTO memory_meta (user_id, meta_key, kind, meta_value, doc_id)
  SELECT new.user_id, j.key, CASE j.type WHEN 'text' THEN 's' WHEN 'integer' THEN 'n'
    WHEN 'real' THEN 'n' ELSE 'b' END, j.atom, new.doc_id
  FROM json_each(CASE WHEN json_valid(new.metadata) AND json_type(new.metadata) = 'object'
    THEN new.metadata END) j
  WHERE j.type IN ('text', 'integer', 'real', 'true', 'false');
END;
-- meta:end

-- Who may read a shared document library (graphmem.usecases.libraries): `library` is the
-- library's tenant id, whose records hold its documents.
CREATE TABLE IF NOT EXISTS library_readers (
  library     TEXT    NOT NULL,
  user_id     TEXT    NOT NULL,
  created_at  TEXT    NOT NULL,
  PRIMARY KEY (library, user_id)
);
CREATE INDEX IF NOT EXISTS ix_library_readers_user ON library_readers (user_id);

-- The vault (graphmem.guard.vault): each user's data key, wrapped by the store key that is kept
-- outside the database, and their secrets encrypted under it, one row per reference in a
-- memory ([secret:password#1]). Base64 text, AES-GCM; erasing the user drops both.
CREATE TABLE IF NOT EXISTS vault_keys (
  user_id     TEXT    NOT NULL PRIMARY KEY,
  key_id      TEXT    NOT NULL,
  wrapped     TEXT    NOT NULL,
  created_at  TEXT    NOT NULL
);

CREATE TABLE IF NOT EXISTS vault_secrets (
  user_id     TEXT    NOT NULL,
  memory_id   TEXT    NOT NULL,
  ref         TEXT    NOT NULL,
  type        TEXT    NOT NULL,
  nonce       TEXT    NOT NULL,
  ciphertext  TEXT    NOT NULL,
  created_at  TEXT    NOT NULL,
  PRIMARY KEY (user_id, memory_id, ref)
);

CREATE TABLE IF NOT EXISTS audit_log (
  id          INTEGER PRIMARY KEY,
  user_id     TEXT    NOT NULL,
  action      TEXT    NOT NULL,
  memory_ids  TEXT    NULL,
  details     TEXT    NULL,
  created_at  TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_audit_user_created ON audit_log (user_id, created_at);

CREATE TABLE IF NOT EXISTS outbox (
  id               INTEGER PRIMARY KEY,
  user_id          TEXT    NOT NULL,
  memory_id        TEXT    NOT NULL,
  op               TEXT    NOT NULL,
  target           TEXT    NOT NULL DEFAULT 'vectors',
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_error       TEXT    NULL,
  next_attempt_at  TEXT    NOT NULL,
  created_at       TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_outbox_due ON outbox (next_attempt_at);
CREATE INDEX IF NOT EXISTS ix_outbox_memory ON outbox (memory_id);

CREATE TABLE IF NOT EXISTS keyword_df (
  user_id  TEXT    NOT NULL,
  term     TEXT    NOT NULL,
  df       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, term)
);

-- Facts about the store as a whole (graphmem.stores.records.meta): keyword token version,
-- embedding model of the vector projection.
CREATE TABLE IF NOT EXISTS store_meta (
  name   TEXT    NOT NULL PRIMARY KEY,
  value  TEXT    NOT NULL
);
