-- Statements of src/modules/api-tokens/tokens.repository.ts, as run (test/db/statements.test.ts writes this file).

-- auth.callerByTokenHash
select t.id as token_id, t.user_id, t.company_id, c.timezone, u.role, t.scopes, t.expires_at,
       t.oauth_grant_id as grant_id, a.id as app_id, a.name as app_name
  from api_tokens t
  join users u on u.company_id = t.company_id and u.id = t.user_id
  join companies c on c.id = t.company_id
  left join oauth_grants g on g.company_id = t.company_id and g.id = t.oauth_grant_id
  left join oauth_apps a on a.company_id = g.app_company_id and a.id = g.app_id
 where t.token_hash = $1 and t.revoked_at is null and u.active
   and (t.oauth_grant_id is null or (g.revoked_at is null and a.id is not null));

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
 where company_id = $1 and user_id = $2 and revoked_at is null and oauth_grant_id is null
 order by id;

-- auth.tokenOfUser
select id, label, prefix, scopes, expires_at, created_at, last_used_at from api_tokens
 where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null and oauth_grant_id is null;

-- auth.revokeOfUser
update api_tokens set revoked_at = $4, updated_at = $4
 where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null and oauth_grant_id is null
 returning id, label, prefix, scopes, expires_at, created_at, last_used_at, token_hash;

-- auth.tokensOfCompany
select t.id, t.label, t.prefix, t.scopes, t.expires_at, t.created_at, t.last_used_at, t.user_id, u.name as user_name, u.email as user_email
  from api_tokens t join users u on u.company_id = t.company_id and u.id = t.user_id
 where t.company_id = $1 and t.revoked_at is null and t.oauth_grant_id is null
 order by t.id;

-- auth.tokenOfCompany
select t.id, t.label, t.prefix, t.scopes, t.expires_at, t.created_at, t.last_used_at, t.user_id, u.name as user_name, u.email as user_email
  from api_tokens t join users u on u.company_id = t.company_id and u.id = t.user_id
 where t.company_id = $1 and t.id = $2 and t.revoked_at is null and t.oauth_grant_id is null;

-- auth.revokeOfCompany
update api_tokens set revoked_at = $3, updated_at = $3
 where company_id = $1 and id = $2 and revoked_at is null and oauth_grant_id is null
 returning id, label, prefix, scopes, expires_at, created_at, last_used_at, token_hash;

-- auth.touchTokens
with touched as (
  update api_tokens t set last_used_at = u.at
    from unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) as u(company_id, id, at)
   where t.company_id = u.company_id and t.id = u.id
     and (t.last_used_at is null or t.last_used_at < u.at - interval '1 minute')
), seen as (
  insert into api_token_addresses as a (company_id, token_id, ip, first_seen_at, last_seen_at)
  select u.company_id, u.token_id, u.ip, u.at, u.at
    from unnest($4::bigint[], $5::bigint[], $6::text[], $7::timestamptz[]) with ordinality as u(company_id, token_id, ip, at, n)
   where exists (select from api_tokens t where t.company_id = u.company_id and t.id = u.token_id) -- not one deleted meanwhile
   order by u.n
  on conflict (company_id, token_id, ip) do update
     set first_seen_at = case when a.last_seen_at < excluded.last_seen_at - interval '30 days'
                              then excluded.last_seen_at else a.first_seen_at end,
         last_seen_at = excluded.last_seen_at
   where a.last_seen_at < excluded.last_seen_at - interval '1 hour'
  returning a.company_id, a.token_id, a.ip, a.first_seen_at, a.last_seen_at
)
select s.company_id, s.token_id, s.ip, coalesce(t.label, t.prefix || '…') as label
  from seen s join api_tokens t on t.company_id = s.company_id and t.id = s.token_id
 where s.first_seen_at = s.last_seen_at;

-- auth.markExpiryRefusal
update api_tokens set expiry_refusal_recorded_at = $3
 where company_id = $1 and id = $2 and expiry_refusal_recorded_at is null
 returning id, coalesce(label, prefix || '…') as label;

-- oauth.revokeGrantTokens
update api_tokens set revoked_at = $3, updated_at = $3
 where company_id = $1 and oauth_grant_id = $2 and revoked_at is null;

-- oauth.revokeOAuthTokensOfUser
update api_tokens set revoked_at = $3, updated_at = $3
 where company_id = $1 and user_id = $2 and oauth_grant_id is not null and revoked_at is null;

-- oauth.insertAccessToken
insert into api_tokens (company_id, user_id, token_hash, prefix, label, scopes, expires_at, oauth_grant_id, created_at, updated_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
returning id;

-- oauth.accessTokenByHash
select t.company_id, t.id, t.user_id, t.scopes, t.expires_at, t.created_at, t.revoked_at, t.oauth_grant_id as grant_id,
       g.app_company_id, g.app_id, g.revoked_at as grant_revoked_at, u.active as user_active, u.email as user_email
  from api_tokens t
  join oauth_grants g on g.company_id = t.company_id and g.id = t.oauth_grant_id
  join users u on u.company_id = t.company_id and u.id = t.user_id
 where t.token_hash = $1;

-- oauth.revokeAccessToken
update api_tokens set revoked_at = $3, updated_at = $3 where company_id = $1 and id = $2 and revoked_at is null returning id;
