-- graphmem canonical schema, MySQL 8 / MariaDB 10.11+ (utf8mb4).
-- Mounted by compose.yaml as the MySQL init script and applied by the MySQL adapter on start.
-- The SQLite schema (sqlite.sql) must stay equivalent: tests/stores/test_schema.py compares them.

-- doc_id doubles as the write order (graphmem.write_order): a new row's doc_id is larger than
-- every stored one, so (created_at, doc_id) orders a user's memories, equal timestamps included.
CREATE TABLE IF NOT EXISTS memories (
  doc_id          BIGINT       NOT NULL AUTO_INCREMENT,
  id              CHAR(36)     NOT NULL,
  user_id         VARCHAR(128) NOT NULL,
  session_id      VARCHAR(128) NULL,
  content         TEXT         NOT NULL,
  summary         VARCHAR(255) NOT NULL DEFAULT '',
  search_text     MEDIUMTEXT   NOT NULL,
  memory_type     VARCHAR(16)  NOT NULL,
  source          VARCHAR(16)  NOT NULL DEFAULT 'user',
  confidence      DOUBLE       NOT NULL DEFAULT 1.0,
  embedding_id    CHAR(36)     NULL,
  metadata        JSON         NULL,
  access_count    INT          NOT NULL DEFAULT 0,
  last_access_at  DATETIME(6)  NULL,
  decay_score     DOUBLE       NOT NULL DEFAULT 1.0,
  status          VARCHAR(16)  NOT NULL DEFAULT 'active',
  expires_at      DATETIME(6)  NULL,
  created_at      DATETIME(6)  NOT NULL,
  updated_at      DATETIME(6)  NOT NULL,
  valid_from      DATETIME(6)  NULL,
  valid_to        DATETIME(6)  NULL,
  slot            VARCHAR(191) NULL,
  agent_id        VARCHAR(128) NULL,
  run_id          VARCHAR(128) NULL,
  kind            VARCHAR(16)  NOT NULL DEFAULT 'memory',
  PRIMARY KEY (doc_id),
  UNIQUE KEY uq_memories_id (id),
  KEY ix_memories_user_status_created (user_id, status, created_at),
  KEY ix_memories_user_type (user_id, memory_type),
  KEY ix_memories_expires (expires_at),
  KEY ix_memories_user_slot (user_id, slot),
  KEY ix_memories_user_session_created (user_id, session_id, created_at),
  KEY ix_memories_user_agent_created (user_id, agent_id, created_at),
  KEY ix_memories_user_accessed (user_id, access_count),
  KEY ix_memories_user_decay (user_id, decay_score),
  FULLTEXT KEY ft_memories_search (search_text)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS memory_relations (
  id                BIGINT       NOT NULL AUTO_INCREMENT,
  user_id           VARCHAR(128) NOT NULL,
  source_memory_id  CHAR(36)     NOT NULL,
  target_memory_id  CHAR(36)     NOT NULL,
  relation_type     VARCHAR(32)  NOT NULL,
  strength          DOUBLE       NOT NULL DEFAULT 1.0,
  created_at        DATETIME(6)  NOT NULL,
  valid_from        DATETIME(6)  NULL,
  valid_to          DATETIME(6)  NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_relations_edge (source_memory_id, target_memory_id, relation_type),
  KEY ix_relations_source_rank (source_memory_id, strength DESC, target_memory_id, relation_type),
  KEY ix_relations_target_rank (target_memory_id, strength DESC, source_memory_id, relation_type),
  KEY ix_relations_user (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS entities (
  id              BIGINT       NOT NULL AUTO_INCREMENT,
  user_id         VARCHAR(128) NOT NULL,
  name            VARCHAR(255) NOT NULL,
  normalized_name VARCHAR(255) NOT NULL,
  entity_type     VARCHAR(32)  NOT NULL DEFAULT 'thing',
  created_at      DATETIME(6)  NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_entities_user_name (user_id, normalized_name, entity_type)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS memory_entities (
  memory_id  CHAR(36)     NOT NULL,
  entity_id  BIGINT       NOT NULL,
  user_id    VARCHAR(128) NOT NULL,
  PRIMARY KEY (memory_id, entity_id),
  KEY ix_memory_entities_entity (entity_id),
  KEY ix_memory_entities_user (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Audit rows hold ids, counts and decisions, never the content of a deleted memory.
-- Who may read a shared document library (graphmem.usecases.libraries): `library` is the
-- library's tenant id, whose records hold its documents.
CREATE TABLE IF NOT EXISTS library_readers (
  library     VARCHAR(128) NOT NULL,
  user_id     VARCHAR(128) NOT NULL,
  created_at  DATETIME(6)  NOT NULL,
  PRIMARY KEY (library, user_id),
  KEY ix_library_readers_user (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The vault (graphmem.guard.vault): each user's data key, wrapped by the store key that is kept
-- outside the database, and their secrets encrypted under it, one row per reference in a
-- memory ([secret:password#1]). Base64 text, AES-GCM; erasing the user drops both.
CREATE TABLE IF NOT EXISTS vault_keys (
  user_id     VARCHAR(128) NOT NULL,
  key_id      VARCHAR(32)  NOT NULL,
  wrapped     VARCHAR(255) NOT NULL,
  created_at  DATETIME(6)  NOT NULL,
  PRIMARY KEY (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS vault_secrets (
  user_id     VARCHAR(128) NOT NULL,
  memory_id   CHAR(36)     NOT NULL,
  ref         VARCHAR(64)  NOT NULL,
  type        VARCHAR(32)  NOT NULL,
  nonce       VARCHAR(32)  NOT NULL,
  ciphertext  TEXT         NOT NULL,
  created_at  DATETIME(6)  NOT NULL,
  PRIMARY KEY (user_id, memory_id, ref)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS audit_log (
  id          BIGINT       NOT NULL AUTO_INCREMENT,
  user_id     VARCHAR(128) NOT NULL,
  action      VARCHAR(32)  NOT NULL,
  memory_ids  JSON         NULL,
  details     JSON         NULL,
  created_at  DATETIME(6)  NOT NULL,
  PRIMARY KEY (id),
  KEY ix_audit_user_created (user_id, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Projection work written in the same transaction as the record it projects.
CREATE TABLE IF NOT EXISTS outbox (
  id               BIGINT       NOT NULL AUTO_INCREMENT,
  user_id          VARCHAR(128) NOT NULL,
  memory_id        CHAR(36)     NOT NULL,
  op               VARCHAR(16)  NOT NULL,
  target           VARCHAR(16)  NOT NULL DEFAULT 'vectors',
  attempts         INT          NOT NULL DEFAULT 0,
  last_error       VARCHAR(500) NULL,
  next_attempt_at  DATETIME(6)  NOT NULL,
  created_at       DATETIME(6)  NOT NULL,
  PRIMARY KEY (id),
  KEY ix_outbox_due (next_attempt_at),
  KEY ix_outbox_memory (memory_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- Per-user keyword statistics for BM25 (term '' = document count, '#len' = total tokens),
-- so one tenant's memories never change another tenant's keyword scores.
CREATE TABLE IF NOT EXISTS keyword_df (
  user_id  VARCHAR(128) NOT NULL,
  term     VARCHAR(64)  NOT NULL,
  df       BIGINT       NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, term)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Facts about the store as a whole (graphmem.stores.records.meta): keyword token version,
-- embedding model of the vector projection.
CREATE TABLE IF NOT EXISTS store_meta (
  name   VARCHAR(64)  NOT NULL,
  value  TEXT         NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
