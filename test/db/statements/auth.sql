-- auth.announce
select pg_notify($1, $2);

-- auth.callerByTokenHash
select t.id as token_id, t.user_id, t.company_id, c.timezone, u.role, t.scopes, t.expires_at
     from api_tokens t
     join users u on u.company_id = t.company_id and u.id = t.user_id
     join companies c on c.id = t.company_id
    where t.token_hash = $1 and t.revoked_at is null and u.active;

-- auth.deleteExpiredSessions
delete from web_sessions
    where company_id = $1 and user_id = $2 and (last_seen_at <= $3 or created_at <= $4);

-- auth.deleteSession
delete from web_sessions where token_hash = $1 returning id;

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

-- auth.insertToken
insert into api_tokens (company_id, user_id, token_hash, prefix, label, scopes, expires_at)
   values ($1, $2, $3, $4, $5, $6, $7)
   returning id, user_id, company_id, prefix, label, scopes, expires_at, created_at, revoked_at;

-- auth.inviteByHash
select i.company_id, i.id, i.user_id, u.name, u.email, c.name as company_name
     from user_invites i
     join users u on u.company_id = i.company_id and u.id = i.user_id
     join companies c on c.id = i.company_id
    where i.token_hash = $1 and i.used_at is null and i.expires_at > $2 and u.active;

-- auth.revokeByHash
update api_tokens set revoked_at = $2, updated_at = $2
    where token_hash = $1 and revoked_at is null
    returning id, user_id, company_id, prefix, label, scopes, expires_at, created_at, revoked_at;

-- auth.revokeOfCompany
update api_tokens set revoked_at = $3, updated_at = $3
    where company_id = $1 and id = $2 and revoked_at is null
    returning id, label, prefix, scopes, expires_at, created_at, last_used_at, token_hash;

-- auth.revokeOfUser
update api_tokens set revoked_at = $4, updated_at = $4
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null
    returning id, label, prefix, scopes, expires_at, created_at, last_used_at, token_hash;

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
select company_id, id, password_hash from users
    where lower(email) = lower($1) and active and password_hash is not null
    order by company_id, id
    limit 5;

-- auth.tokenOfCompany
select t.id, t.label, t.prefix, t.scopes, t.expires_at, t.created_at, t.last_used_at,
                               t.user_id, u.name as user_name, u.email as user_email
     from api_tokens t join users u on u.company_id = t.company_id and u.id = t.user_id
    where t.company_id = $1 and t.id = $2 and t.revoked_at is null;

-- auth.tokenOfUser
select id, label, prefix, scopes, expires_at, created_at, last_used_at from api_tokens
    where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null;

-- auth.tokensOfCompany
select t.id, t.label, t.prefix, t.scopes, t.expires_at, t.created_at, t.last_used_at,
                               t.user_id, u.name as user_name, u.email as user_email
     from api_tokens t join users u on u.company_id = t.company_id and u.id = t.user_id
    where t.company_id = $1 and t.revoked_at is null
    order by t.id;

-- auth.tokensOfUser
select id, label, prefix, scopes, expires_at, created_at, last_used_at from api_tokens
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
