// Saved queries for exploring one user's memory graph in Neo4j Browser. Set the parameters
// first, e.g.  :param user_id => 'zhang'  and  :param memory_id => '…'  (see cypher/README.md).

// name: user_graph
// The user's memories and the relations between them (first 300).
MATCH (a:Memory {user_id: $user_id})-[r]->(b:Memory {user_id: $user_id})
RETURN a, r, b
LIMIT 300;

// name: neighbourhood
// One memory and everything within two hops of it, with the entities they mention.
MATCH p = (m:Memory {id: $memory_id})-[*1..2]-(n)
WHERE m.user_id = $user_id AND all(x IN nodes(p) WHERE x.user_id = $user_id)
RETURN p
LIMIT 200;

// name: causal_chains
// Chains of cause and effect, up to four steps long.
MATCH p = (a:Memory {user_id: $user_id})-[:CAUSAL*1..4]->(b:Memory {user_id: $user_id})
RETURN p
LIMIT 100;

// name: timeline
// The user's memories in time order with what came next.
MATCH (a:Memory {user_id: $user_id})-[t:TEMPORAL]->(b:Memory)
RETURN a.created_at AS at, a.summary AS memory, b.summary AS next, t.strength AS strength
ORDER BY at
LIMIT 200;

// name: entity_hubs
// The entities the user mentions most, and how many memories mention each.
MATCH (e:Entity {user_id: $user_id})<-[:MENTIONS]-(m:Memory)
RETURN e.name AS entity, e.type AS type, count(m) AS memories
ORDER BY memories DESC
LIMIT 25;

// name: entity_memories
// Every memory that mentions one entity (by normalised key, e.g. 'san zhang').
MATCH (e:Entity {user_id: $user_id, key: $entity})<-[:MENTIONS]-(m:Memory)
RETURN e, m;

// name: path_between
// The shortest connection between two memories of the user.
MATCH (a:Memory {id: $memory_id}), (b:Memory {id: $other_id})
WHERE a.user_id = $user_id AND b.user_id = $user_id
MATCH p = shortestPath((a)-[*..6]-(b))
WHERE all(x IN nodes(p) WHERE x.user_id = $user_id)
RETURN p;

// name: versions
// Every version of one memory: what it superseded and what superseded it, oldest first, with
// when each held (epoch seconds; valid_to absent = current).
MATCH (m:Memory {id: $memory_id})
WHERE m.user_id = $user_id
OPTIONAL MATCH p = (a:Memory)-[:SUPERSEDED_BY*0..10]-(m)
WHERE all(x IN nodes(p) WHERE x.user_id = $user_id)
WITH DISTINCT coalesce(a, m) AS v
RETURN v.id AS id, v.summary AS memory, v.status AS status, v.valid_from AS valid_from,
       v.valid_to AS valid_to
ORDER BY valid_from;

// name: contested
// Claims the firewall held back or kept with low confidence, and what they contradict.
MATCH (c:Memory {user_id: $user_id})-[r:CONTRADICTS]->(m:Memory {user_id: $user_id})
RETURN c.summary AS claim, c.status AS status, m.summary AS contradicts
LIMIT 100;
