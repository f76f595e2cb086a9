// graphmem: version chains
// Every chain of versions a user has (a slot's history, e.g. where they live): each version
// from the first to the current one, and since when each held (UTC), latest change first.
// :param user_id => 'alice'
MATCH p = (first:Memory {user_id: $user_id})-[:SUPERSEDED_BY*1..10]->(last:Memory)
WHERE NOT EXISTS { (:Memory)-[:SUPERSEDED_BY]->(first) }
  AND NOT EXISTS { (last)-[:SUPERSEDED_BY]->(:Memory) }
  AND all(x IN nodes(p) WHERE x.user_id = $user_id)
RETURN [v IN nodes(p) | v.summary] AS versions,
       [v IN nodes(p) | CASE WHEN v.valid_from IS NULL THEN null
                             ELSE datetime({epochSeconds: toInteger(v.valid_from)}) END] AS since,
       last.id AS current_id, last.status AS current_status, length(p) AS changes
ORDER BY last.valid_from DESC
LIMIT 100;
