-- Statements of src/modules/auth/tokens.repository.ts, as run (test/db/statements.test.ts writes this file).

-- auth.callerByTokenHash
select t.id as token_id, t.user_id, t.company_id, c.timezone, u.role, t.scopes, t.expires_at
  from api_tokens t
  join users u on u.company_id = t.company_id and u.id = t.user_id
  join companies c on c.id = t.company_id
 where t.token_hash = $1 and t.revoked_at is null and u.active;

-- auth.insertToken
insert into api_tokens (company_id, user_id, token_hash, prefix, label, scopes, expires_at)
values ($1, $2, $3, $4, $5, $6, $7)
returning id, user_id, company_id, prefix, label, scopes, expires_at, created_at, revoked_at;

-- auth.revokeByHash
update api_tokens set revoked_at = $2, updated_at = $2
 where token_hash = $1 and revoked_at is null
 returning id, user_id, company_id, prefix, label, scopes, expires_at, created_at, revoked_at;

-- auth.tokensOfUser
select id, label, prefix, scopes, expires_at, created_at, last_used_at from api_tokens
 where company_id = $1 and user_id = $2 and revoked_at is null
 order by id;

-- auth.tokenOfUser
select id, label, prefix, scopes, expires_at, created_at, last_used_at from api_tokens
 where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null;

-- auth.revokeOfUser
update api_tokens set revoked_at = $4, updated_at = $4
 where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null
 returning id, label, prefix, scopes, expires_at, created_at, last_used_at, token_hash;

-- auth.tokensOfCompany
select t.id, t.label, t.prefix, t.scopes, t.expires_at, t.created_at, t.last_used_at, t.user_id, u.name as user_name, u.email as user_email
  from api_tokens t join users u on u.company_id = t.company_id and u.id = t.user_id
 where t.company_id = $1 and t.revoked_at is null
 order by t.id;

-- auth.tokenOfCompany
select t.id, t.label, t.prefix, t.scopes, t.expires_at, t.created_at, t.last_used_at, t.user_id, u.name as user_name, u.email as user_email
  from api_tokens t join users u on u.company_id = t.company_id and u.id = t.user_id
 where t.company_id = $1 and t.id = $2 and t.revoked_at is null;

-- auth.revokeOfCompany
update api_tokens set revoked_at = $3, updated_at = $3
 where company_id = $1 and id = $2 and revoked_at is null
 returning id, label, prefix, scopes, expires_at, created_at, last_used_at, token_hash;

-- auth.touchTokens
update api_tokens t set last_used_at = u.at
  from unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) as u(company_id, id, at)
 where t.company_id = u.company_id and t.id = u.id
   and (t.last_used_at is null or t.last_used_at < u.at - interval '1 minute');
