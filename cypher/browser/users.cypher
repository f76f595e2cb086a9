// graphmem: users in the graph
// Every user id the graph holds, with how many memories each has and when the newest arrived
// (UTC): the value to give :param user_id in the other queries.
MATCH (m:Memory)
RETURN m.user_id AS user_id, count(*) AS memories,
       datetime({epochSeconds: toInteger(max(m.created_at))}) AS newest
ORDER BY newest DESC
LIMIT 100;
