// graphmem: a memory's neighbourhood
// One memory and everything within two hops of it, with the entities they mention.
// :param user_id => 'alice'
// :param memory_id => '3f0c…'
MATCH p = (m:Memory {id: $memory_id})-[*1..2]-(n)
WHERE m.user_id = $user_id AND all(x IN nodes(p) WHERE x.user_id = $user_id)
RETURN p
LIMIT 200;
