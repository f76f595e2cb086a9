// Counts and ids, for health checks, tests and the rebuild command.

// name: node_ids
MATCH (m:Memory)
WHERE $user_id IS NULL OR m.user_id = $user_id
RETURN m.id AS id;

// name: edge_count
MATCH (:Memory)-[r]->(:Memory)
WHERE $user_id IS NULL OR r.user_id = $user_id
RETURN count(r) AS n;

// name: health
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition;
