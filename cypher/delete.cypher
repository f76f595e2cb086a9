// Deletes. A deleted memory takes its relationships with it; entities nobody mentions any
// more are pruned for that user.

// name: delete_memories
UNWIND $ids AS id
MATCH (m:Memory {id: id})
DETACH DELETE m;

// name: prune_entities
MATCH (e:Entity)
WHERE e.user_id IN $user_ids AND NOT (e)<-[:MENTIONS]-()
DELETE e;

// name: delete_user
MATCH (n)
WHERE (n:Memory OR n:Entity) AND n.user_id = $user_id
DETACH DELETE n;
