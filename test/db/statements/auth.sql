-- auth.announce
select pg_notify($1, $2);

-- auth.deleteExpiredSessions
delete from web_sessions
    where company_id = $1 and user_id = $2 and (last_seen_at <= $3 or created_at <= $4);

-- auth.deleteSession
delete from web_sessions where token_hash = $1 returning company_id, id, user_id;

-- auth.deleteSessionsOfUser
delete from web_sessions where company_id = $1 and user_id = $2 returning id;

-- auth.deleteUnusedInvites
delete from user_invites where company_id = $1 and user_id = $2 and used_at is null;

-- auth.insertInvite
insert into user_invites (company_id, user_id, token_hash, expires_at, created_at)
   values ($1, $2, $3, $4, $5)
   returning id, expires_at;

-- auth.insertSession
insert into web_sessions (company_id, user_id, token_hash, created_at, last_seen_at)
   values ($1, $2, $3, $4, $4)
   returning id;

-- auth.inviteByHash
select i.company_id, i.id, i.user_id, u.name, u.email, c.name as company_name
     from user_invites i
     join users u on u.company_id = i.company_id and u.id = i.user_id
     join companies c on c.id = i.company_id
    where i.token_hash = $1 and i.used_at is null and i.expires_at > $2 and u.active;

-- auth.revokeOfUser
update api_tokens set revoked_at = $4, updated_at = $4
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null
    returning id, label, prefix, created_at, last_used_at, token_hash;

-- auth.sessionByHash
select s.company_id, s.id, s.user_id, s.last_seen_at, u.name, u.email, u.role,
          c.name as company_name, c.timezone
     from web_sessions s
     join users u on u.company_id = s.company_id and u.id = s.user_id
     join companies c on c.id = s.company_id
    where s.token_hash = $1 and u.active and s.last_seen_at > $2 and s.created_at > $3;

-- auth.setActive
update users set active = $3, updated_at = $4 where company_id = $1 and id = $2
   returning id, name, email, role, active, created_at, updated_at;

-- auth.setPassword
update users set password_hash = $3 where company_id = $1 and id = $2 returning id;

-- auth.signInCandidates
select company_id, id, name, active, password_hash from users
    where lower(email) = lower($1) and password_hash is not null
    order by company_id, id
    limit 5;

-- auth.tokenOfUser
select id, label, prefix, created_at, last_used_at from api_tokens
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null;

-- auth.tokensOfUser
select id, label, prefix, created_at, last_used_at from api_tokens
    where company_id = $1 and user_id = $2 and revoked_at is null
    order by id;

-- auth.touchSession
update web_sessions set last_seen_at = $3
    where company_id = $1 and id = $2 and last_seen_at < $3::timestamptz - interval '1 minute';

-- auth.touchTokens
update api_tokens t set last_used_at = u.at
     from unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) as u(company_id, id, at)
    where t.company_id = u.company_id and t.id = u.id
      and (t.last_used_at is null or t.last_used_at < u.at - interval '1 minute');

-- auth.useInvite
update user_invites set used_at = $3 where company_id = $1 and id = $2 and used_at is null returning id;
