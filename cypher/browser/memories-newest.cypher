// graphmem: memories, newest first
// One user's memories, newest first: what each says, its type, status, scopes and when it was
// written (UTC).
// :param user_id => 'alice'
MATCH (m:Memory {user_id: $user_id})
RETURN m.id AS id, m.summary AS memory, m.memory_type AS type, m.status AS status,
       datetime({epochSeconds: toInteger(m.created_at)}) AS created,
       m.agent_id AS agent, m.run_id AS run, m.session_id AS session
ORDER BY m.created_at DESC
LIMIT 100;
