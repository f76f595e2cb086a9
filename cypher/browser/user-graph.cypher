// graphmem: a user's memory graph
// One user's memories and the relations between them, drawn as a graph (first 300).
// :param user_id => 'alice'
MATCH (a:Memory {user_id: $user_id})-[r]->(b:Memory {user_id: $user_id})
RETURN a, r, b
LIMIT 300;
