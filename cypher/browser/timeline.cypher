// graphmem: timeline
// One user's memories in time order (UTC), each with the one that came next (TEMPORAL).
// :param user_id => 'alice'
MATCH (a:Memory {user_id: $user_id})-[t:TEMPORAL]->(b:Memory {user_id: $user_id})
RETURN datetime({epochSeconds: toInteger(a.created_at)}) AS at, a.summary AS memory,
       b.summary AS next, t.strength AS strength
ORDER BY at
LIMIT 200;
