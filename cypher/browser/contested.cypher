// graphmem: contested claims
// Claims the firewall held back or kept with low confidence (CONTRADICTS), what each
// contradicts, and when each was written (UTC).
// :param user_id => 'alice'
MATCH (c:Memory {user_id: $user_id})-[:CONTRADICTS]->(m:Memory {user_id: $user_id})
RETURN c.summary AS claim, c.status AS status,
       datetime({epochSeconds: toInteger(c.created_at)}) AS claimed, m.summary AS contradicts,
       datetime({epochSeconds: toInteger(m.created_at)}) AS stated
ORDER BY claimed DESC
LIMIT 100;
