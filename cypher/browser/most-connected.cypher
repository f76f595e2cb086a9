// graphmem: most connected memories
// A user's memories with the most relations to other memories, and which kinds they are.
// :param user_id => 'alice'
MATCH (m:Memory {user_id: $user_id})-[r]-(:Memory {user_id: $user_id})
WITH m, count(r) AS links, collect(DISTINCT type(r)) AS kinds
RETURN m.id AS id, m.summary AS memory, m.memory_type AS type, links, kinds,
       datetime({epochSeconds: toInteger(m.created_at)}) AS created
ORDER BY links DESC, created DESC
LIMIT 25;
