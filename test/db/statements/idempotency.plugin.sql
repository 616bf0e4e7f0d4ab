-- Statements of src/plugins/idempotency.plugin.ts, as run (test/db/statements.test.ts writes this file).

-- idempotency.claim
with claimed as (
  insert into idempotency_keys as k (company_id, token_id, key, fingerprint, created_at)
  values ($1, $2, $3, $4, $5)
  on conflict (company_id, token_id, key) do update
     set fingerprint = excluded.fingerprint, created_at = excluded.created_at, status_code = null,
         response_headers = null, response_body = null, completed_at = null
   where k.created_at <= $6 or (k.status_code is null and k.created_at <= $7)
  returning 1
)
select true as claimed, null::text as fingerprint, null::int as status_code,
       null::json as response_headers, null::text as response_body
  from claimed
union all
select false, fingerprint, status_code, response_headers, response_body
  from idempotency_keys
 where company_id = $1 and token_id = $2 and key = $3 and not exists (select from claimed);

-- idempotency.find
select false as claimed, fingerprint, status_code, response_headers, response_body
  from idempotency_keys
 where company_id = $1 and token_id = $2 and key = $3;

-- idempotency.complete
update idempotency_keys
   set status_code = $5, response_headers = $6, response_body = $7, completed_at = $8
 where company_id = $1 and token_id = $2 and key = $3 and created_at = $4 and status_code is null
returning true as stored;

-- idempotency.release
delete from idempotency_keys
 where company_id = $1 and token_id = $2 and key = $3 and created_at = $4 and status_code is null;

-- idempotency.prune
with gone as (
  delete from idempotency_keys k
   using (select company_id, token_id, key from idempotency_keys
           where created_at < $1 order by created_at limit $2 for update skip locked) old
   where k.company_id = old.company_id and k.token_id = old.token_id and k.key = old.key
  returning 1
)
select count(*)::int as deleted from gone;
