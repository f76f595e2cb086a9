// graphmem: one agent's memories
// The memories one agent wrote for a user, newest first, with the run and session of each
// (UTC times).
// :param user_id => 'alice'
// :param agent_id => 'planner'
MATCH (m:Memory {user_id: $user_id})
WHERE m.agent_id = $agent_id
RETURN m.id AS id, m.summary AS memory, m.memory_type AS type, m.status AS status,
       datetime({epochSeconds: toInteger(m.created_at)}) AS created,
       m.run_id AS run, m.session_id AS session
ORDER BY m.created_at DESC
LIMIT 100;
