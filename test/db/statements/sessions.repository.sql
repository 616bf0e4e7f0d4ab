-- Statements of src/modules/auth/sessions.repository.ts, as run (test/db/statements.test.ts writes this file).

-- auth.sessionByHash
select s.company_id, s.id, s.user_id, s.last_seen_at, u.name, u.email, u.role,
       c.name as company_name, c.timezone
  from web_sessions s
  join users u on u.company_id = s.company_id and u.id = s.user_id
  join companies c on c.id = s.company_id
 where s.token_hash = $1 and u.active and s.last_seen_at > $2 and s.created_at > $3;

-- auth.touchSession
update web_sessions set last_seen_at = $3
 where company_id = $1 and id = $2 and last_seen_at < $3::timestamptz - interval '1 minute';

-- auth.insertSession
insert into web_sessions (company_id, user_id, token_hash, created_at, last_seen_at)
values ($1, $2, $3, $4, $4)
returning id;

-- auth.deleteSession
delete from web_sessions where token_hash = $1 returning company_id, id, user_id;

-- auth.deleteSessionsOfUser
delete from web_sessions where company_id = $1 and user_id = $2 returning id;

-- auth.deleteExpiredSessions
delete from web_sessions
 where company_id = $1 and user_id = $2 and (last_seen_at <= $3 or created_at <= $4);
