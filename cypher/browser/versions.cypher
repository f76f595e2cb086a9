// graphmem: versions of a memory
// Every version of one memory, oldest first: what it replaced and what replaced it
// (SUPERSEDED_BY), with when each held (UTC; valid_to empty for the current one).
// :param user_id => 'alice'
// :param memory_id => '3f0c…'
MATCH (m:Memory {id: $memory_id})
WHERE m.user_id = $user_id
OPTIONAL MATCH p = (a:Memory)-[:SUPERSEDED_BY*0..10]-(m)
WHERE all(x IN nodes(p) WHERE x.user_id = $user_id)
WITH DISTINCT coalesce(a, m) AS v
RETURN v.id AS id, v.summary AS memory, v.status AS status,
       CASE WHEN v.valid_from IS NULL THEN null
            ELSE datetime({epochSeconds: toInteger(v.valid_from)}) END AS valid_from,
       CASE WHEN v.valid_to IS NULL THEN null
            ELSE datetime({epochSeconds: toInteger(v.valid_to)}) END AS valid_to
ORDER BY valid_from;
