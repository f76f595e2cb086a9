// graphmem: counts by status and type
// How many of a user's memories are active, archived, superseded or quarantined (held for
// review), by type, and when the newest of each arrived (UTC).
// :param user_id => 'alice'
MATCH (m:Memory {user_id: $user_id})
RETURN m.status AS status, m.memory_type AS type, count(*) AS memories,
       datetime({epochSeconds: toInteger(max(m.created_at))}) AS newest
ORDER BY status, type;
