// graphmem: memories mentioning an entity
// Every memory of a user that mentions one entity, drawn as a graph. $entity is the entity's
// name or its normalised key (as entity hubs lists them), in any case.
// :param user_id => 'alice'
// :param entity => 'Apollo'
MATCH (e:Entity {user_id: $user_id})<-[r:MENTIONS]-(m:Memory {user_id: $user_id})
WHERE e.key = toLower($entity) OR toLower(e.name) = toLower($entity)
RETURN e, r, m
LIMIT 200;
