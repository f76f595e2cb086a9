// graphmem: agents, runs and sessions
// The scopes a user's memories were written in: each agent, run and session, with how many
// memories and when the first and last arrived (UTC). Empty agent: written for the user alone.
// :param user_id => 'alice'
MATCH (m:Memory {user_id: $user_id})
RETURN m.agent_id AS agent, m.run_id AS run, m.session_id AS session, count(*) AS memories,
       datetime({epochSeconds: toInteger(min(m.created_at))}) AS first,
       datetime({epochSeconds: toInteger(max(m.created_at))}) AS last
ORDER BY last DESC
LIMIT 100;
