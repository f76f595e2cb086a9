// graphmem: path between two memories
// The shortest connection between two of a user's memories, through memories and entities.
// :param user_id => 'alice'
// :param memory_id => '3f0c…'
// :param other_id => '9a1e…'
MATCH (a:Memory {id: $memory_id}), (b:Memory {id: $other_id})
WHERE a.user_id = $user_id AND b.user_id = $user_id
MATCH p = shortestPath((a)-[*..6]-(b))
WHERE all(x IN nodes(p) WHERE x.user_id = $user_id)
RETURN p;
