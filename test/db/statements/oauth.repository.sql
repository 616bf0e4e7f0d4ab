-- Statements of src/modules/oauth/oauth.repository.ts, as run (test/db/statements.test.ts writes this file).

-- oauth.insertApp
insert into oauth_apps (company_id, client_id, name, redirect_uris, scopes, secret_hash)
values ($1, $2, $3, $4, $5, $6)
returning company_id, id, client_id, name, redirect_uris, scopes, secret_hash is not null as confidential,
                  previous_secret_expires_at, created_at, updated_at;

-- oauth.appsOfCompany
select company_id, id, client_id, name, redirect_uris, scopes, secret_hash is not null as confidential,
previous_secret_expires_at, created_at, updated_at from oauth_apps where company_id = $1 order by id;

-- oauth.appOfCompany
select company_id, id, client_id, name, redirect_uris, scopes, secret_hash is not null as confidential,
previous_secret_expires_at, created_at, updated_at from oauth_apps where company_id = $1 and id = $2;

-- oauth.updateApp
update oauth_apps set name = $3, redirect_uris = $4, scopes = $5, updated_at = $6
 where company_id = $1 and id = $2
 returning company_id, id, client_id, name, redirect_uris, scopes, secret_hash is not null as confidential,
                  previous_secret_expires_at, created_at, updated_at;

-- oauth.rotateSecret
update oauth_apps
   set previous_secret_hash = secret_hash, previous_secret_expires_at = $4, secret_hash = $3, updated_at = $5
 where company_id = $1 and id = $2 and secret_hash is not null
 returning company_id, id, client_id, name, redirect_uris, scopes, secret_hash is not null as confidential,
                  previous_secret_expires_at, created_at, updated_at;

-- oauth.deleteApp
delete from oauth_apps where company_id = $1 and id = $2 returning company_id, id, client_id, name, redirect_uris, scopes, secret_hash is not null as confidential,
previous_secret_expires_at, created_at, updated_at;

-- oauth.appByClientId
select a.company_id, a.id, a.client_id, a.name, a.redirect_uris, a.scopes, a.secret_hash is not null as confidential,
       a.previous_secret_expires_at, a.created_at, a.updated_at, a.secret_hash, a.previous_secret_hash, c.name as company_name
  from oauth_apps a join companies c on c.id = a.company_id
 where a.client_id = $1;

-- oauth.anyApp
select exists (select 1 from oauth_apps) as found;

-- oauth.insertGrant
insert into oauth_grants (company_id, app_company_id, app_id, user_id, scopes, created_at)
values ($1, $2, $3, $4, $5, $6)
returning company_id, id, app_company_id, app_id, user_id, scopes, created_at, revoked_at;

-- oauth.revokeGrant
update oauth_grants set revoked_at = $3 where company_id = $1 and id = $2 and revoked_at is null returning company_id, id, app_company_id, app_id, user_id, scopes, created_at, revoked_at;

-- oauth.revokeGrantOfUser
update oauth_grants set revoked_at = $4
 where company_id = $1 and id = $2 and user_id = $3 and revoked_at is null
 returning company_id, id, app_company_id, app_id, user_id, scopes, created_at, revoked_at;

-- oauth.revokeGrantsOfUser
update oauth_grants set revoked_at = $3 where company_id = $1 and user_id = $2 and revoked_at is null returning id;

-- oauth.liveGrantsOfApp
select company_id, id from oauth_grants where app_company_id = $1 and app_id = $2 and revoked_at is null;

-- oauth.grantsOfUser
select g.id as grant_id, a.id as app_id, a.name as app_name, c.name as company_name, g.scopes, g.created_at
  from oauth_grants g
  join oauth_apps a on a.company_id = g.app_company_id and a.id = g.app_id
  join companies c on c.id = a.company_id
 where g.company_id = $1 and g.user_id = $2 and g.revoked_at is null
 order by g.id;

-- oauth.insertCode
insert into oauth_codes (company_id, app_company_id, app_id, user_id, code_hash, redirect_uri, code_challenge, scopes, expires_at, grant_id)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
returning id;

-- oauth.codeByHash
select o.company_id, o.id, o.app_company_id, o.app_id, o.user_id, o.redirect_uri, o.code_challenge, o.scopes,
       o.expires_at, o.used_at, o.grant_id, g.revoked_at as grant_revoked_at, u.active as user_active
  from oauth_codes o
  join oauth_grants g on g.company_id = o.company_id and g.id = o.grant_id
  join users u on u.company_id = o.company_id and u.id = o.user_id
 where o.code_hash = $1
   for update of o;

-- oauth.markCodeUsed
update oauth_codes set used_at = $3 where company_id = $1 and id = $2;

-- oauth.lockRefreshToken
select r.company_id, r.id, r.grant_id, r.expires_at, r.used_at, r.created_at,
g.app_company_id, g.app_id, g.user_id, g.scopes, g.revoked_at as grant_revoked_at,
u.active as user_active, u.email as user_email
from oauth_refresh_tokens r
join oauth_grants g on g.company_id = r.company_id and g.id = r.grant_id
join users u on u.company_id = g.company_id and u.id = g.user_id
where r.token_hash = $1
for update of r;

-- oauth.refreshTokenByHash
select r.company_id, r.id, r.grant_id, r.expires_at, r.used_at, r.created_at,
      g.app_company_id, g.app_id, g.user_id, g.scopes, g.revoked_at as grant_revoked_at,
      u.active as user_active, u.email as user_email
 from oauth_refresh_tokens r
 join oauth_grants g on g.company_id = r.company_id and g.id = r.grant_id
 join users u on u.company_id = g.company_id and u.id = g.user_id
where r.token_hash = $1;

-- oauth.insertRefreshToken
insert into oauth_refresh_tokens (company_id, grant_id, token_hash, expires_at, created_at) values ($1, $2, $3, $4, $5);

-- oauth.markRefreshUsed
update oauth_refresh_tokens set used_at = $3 where company_id = $1 and id = $2;
