// Constraints and indexes, applied by graphmem on connect (every statement is IF NOT EXISTS).

// name: memory_id
CREATE CONSTRAINT graphmem_memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE;

// name: memory_user
CREATE INDEX graphmem_memory_user IF NOT EXISTS FOR (m:Memory) ON (m.user_id);

// name: entity_uid
CREATE CONSTRAINT graphmem_entity_uid IF NOT EXISTS FOR (e:Entity) REQUIRE e.uid IS UNIQUE;

// name: entity_user
CREATE INDEX graphmem_entity_user IF NOT EXISTS FOR (e:Entity) ON (e.user_id);
