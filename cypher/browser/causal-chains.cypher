// graphmem: causal chains
// Chains of cause and effect (CAUSAL) among one user's memories, up to four steps long.
// :param user_id => 'alice'
MATCH p = (a:Memory {user_id: $user_id})-[:CAUSAL*1..4]->(b:Memory {user_id: $user_id})
WHERE all(x IN nodes(p) WHERE x.user_id = $user_id)
RETURN p
LIMIT 100;
