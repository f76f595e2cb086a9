// One hop of associative expansion, bounded by user at the hop: the start memories, the
// relationship and the neighbour must all belong to $user_id. graphmem calls it once per hop
// with the new frontier, so k hops never leave the user. Per start memory only the strongest
// $per_node relationships are followed (ties: neighbour id, type, source id), the same order
// the networkx adapter uses, so both adapters expand identically. With $at (epoch seconds) only
// relationships valid then are followed (valid_from <= $at < valid_to, absent = open), filtered
// before the cut, as networkx does; $at null follows history too.

// name: neighbours
UNWIND $ids AS id
MATCH (a:Memory {id: id})
WHERE a.user_id = $user_id
CALL (a) {
  MATCH (a)-[r]-(b:Memory)
  WHERE b.user_id = $user_id AND r.user_id = $user_id
    AND ($types IS NULL OR toLower(type(r)) IN $types)
    AND ($at IS NULL OR ((r.valid_from IS NULL OR r.valid_from <= $at)
                         AND (r.valid_to IS NULL OR $at < r.valid_to)))
  RETURN r
  ORDER BY r.strength DESC, b.id, toLower(type(r)), startNode(r).id
  LIMIT $per_node
}
RETURN DISTINCT startNode(r).id AS source, endNode(r).id AS target,
       toLower(type(r)) AS type, r.strength AS strength, r.valid_from AS valid_from,
       r.valid_to AS valid_to;

// name: entity_names
UNWIND $ids AS id
MATCH (m:Memory {id: id})-[:MENTIONS]->(e:Entity)
WHERE m.user_id = $user_id AND e.user_id = $user_id
RETURN m.id AS id, collect(e.name) AS names;
