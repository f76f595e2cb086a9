// graphmem: one memory
// Everything the graph holds about one memory: its properties, when it held (UTC; valid_to
// empty while it is current) and the entities it mentions.
// :param user_id => 'alice'
// :param memory_id => '3f0c…'
MATCH (m:Memory {id: $memory_id})
WHERE m.user_id = $user_id
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
RETURN m.id AS id, m.summary AS memory, m.memory_type AS type, m.status AS status,
       datetime({epochSeconds: toInteger(m.created_at)}) AS created,
       CASE WHEN m.valid_from IS NULL THEN null
            ELSE datetime({epochSeconds: toInteger(m.valid_from)}) END AS valid_from,
       CASE WHEN m.valid_to IS NULL THEN null
            ELSE datetime({epochSeconds: toInteger(m.valid_to)}) END AS valid_to,
       m.agent_id AS agent, m.run_id AS run, m.session_id AS session,
       collect(e.name) AS mentions;
