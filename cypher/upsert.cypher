// Projection writes, batched with UNWIND. Relationship types are the relation types in upper
// case (CAUSAL, TEMPORAL, RELATED, SUPERSEDED_BY, ...); every relationship carries its user_id
// and its validity (valid_from / valid_to, epoch seconds, absent when open).

// name: upsert_memories
UNWIND $rows AS row
MERGE (m:Memory {id: row.id})
SET m.user_id = row.user_id, m.memory_type = row.memory_type, m.status = row.status,
    m.created_at = row.created_at, m.session_id = row.session_id, m.summary = row.summary,
    m.valid_from = row.valid_from, m.valid_to = row.valid_to, m.agent_id = row.agent_id,
    m.run_id = row.run_id
// A second label per memory type (:Fact, :Preference, :Event, :Task), so Neo4j Browser, whose
// style sheets select by label only, can colour memories by type; re-typing moves the label.
REMOVE m:Fact:Preference:Event:Task
SET m:$(toUpper(left(row.memory_type, 1)) + substring(row.memory_type, 1));

// name: clear_edges
// Before a memory's edges are re-projected, all of its current ones go.
UNWIND $ids AS id
MATCH (m:Memory {id: id})-[r]-()
DELETE r;

// name: upsert_edges
// Both ends must already be projected and belong to the edge's user; an edge whose other end
// is not there yet arrives when that end is projected (its sync re-reads its edges).
UNWIND $rows AS row
MATCH (a:Memory {id: row.source})
MATCH (b:Memory {id: row.target})
WHERE a.user_id = row.user_id AND b.user_id = row.user_id
MERGE (a)-[r:$(row.type)]->(b)
SET r.strength = row.strength, r.user_id = row.user_id, r.valid_from = row.valid_from,
    r.valid_to = row.valid_to;

// name: upsert_mentions
UNWIND $rows AS row
MATCH (m:Memory {id: row.memory_id})
WHERE m.user_id = row.user_id
MERGE (e:Entity {uid: row.uid})
ON CREATE SET e.user_id = row.user_id
SET e.key = row.key, e.name = row.name, e.type = row.type
MERGE (m)-[r:MENTIONS]->(e)
SET r.user_id = row.user_id;
