-- Statements of src/modules/auth/accounts.repository.ts, as run (test/db/statements.test.ts writes this file).

-- auth.signInCandidates
select company_id, id, name, active, password_hash from users
 where lower(email) = lower($1) and password_hash is not null
 order by company_id, id
 limit 5;

-- auth.setPassword
update users set password_hash = $3 where company_id = $1 and id = $2 returning id;

-- auth.setActive
update users set active = $3, updated_at = $4 where company_id = $1 and id = $2
returning id, name, email, role, active, created_at, updated_at;

-- auth.deleteUnusedInvites
delete from user_invites where company_id = $1 and user_id = $2 and used_at is null;

-- auth.insertInvite
insert into user_invites (company_id, user_id, token_hash, expires_at, created_at)
values ($1, $2, $3, $4, $5)
returning id, expires_at;

-- auth.inviteByHash
select i.company_id, i.id, i.user_id, u.name, u.email, c.name as company_name
  from user_invites i
  join users u on u.company_id = i.company_id and u.id = i.user_id
  join companies c on c.id = i.company_id
 where i.token_hash = $1 and i.used_at is null and i.expires_at > $2 and u.active;

-- auth.useInvite
update user_invites set used_at = $3 where company_id = $1 and id = $2 and used_at is null returning id;
