// graphmem: entity hubs
// The entities a user mentions most, how many memories mention each, and the latest mention
// (UTC).
// :param user_id => 'alice'
MATCH (e:Entity {user_id: $user_id})<-[:MENTIONS]-(m:Memory {user_id: $user_id})
RETURN e.name AS entity, e.type AS type, e.key AS key, count(m) AS memories,
       datetime({epochSeconds: toInteger(max(m.created_at))}) AS last_mentioned
ORDER BY memories DESC, entity
LIMIT 25;
