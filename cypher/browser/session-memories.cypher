// graphmem: one session's memories
// The memories written in one session of a user, in the order they were written (UTC).
// :param user_id => 'alice'
// :param session_id => 'chat-42'
MATCH (m:Memory {user_id: $user_id})
WHERE m.session_id = $session_id
RETURN datetime({epochSeconds: toInteger(m.created_at)}) AS created, m.summary AS memory,
       m.memory_type AS type, m.status AS status, m.agent_id AS agent, m.id AS id
ORDER BY m.created_at
LIMIT 200;
