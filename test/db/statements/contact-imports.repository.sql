-- Statements of src/modules/contact-imports/contact-imports.repository.ts, as run (test/db/statements.test.ts writes this file).

-- contactImports.insert
insert into contact_imports (company_id, user_id, file_name, file_bytes, state, dry_run, options, created_at, updated_at)
values ($1, $2, $3, 0, $7, $4, $5::json, $6, $6)
returning company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at;

-- contactImports.insertChunk
insert into contact_import_chunks (company_id, import_id, seq, data) values ($1, $2, $3, $4);

-- contactImports.setFile
update contact_imports set file_bytes = $3, options = $4::json
 where company_id = (select $1::bigint) and id = $2
returning company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at;

-- contactImports.confirm
update contact_imports set state = 'queued', options = $3::json, updated_at = $4
 where company_id = (select $1::bigint) and id = $2 and state = 'draft'
returning company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at;

-- contactImports.byId
select company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at from contact_imports where company_id = (select $1::bigint) and id = $2;

-- contactImports.latest
select company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at from contact_imports where company_id = (select $1::bigint) order by id desc limit $2;

-- contactImports.claim
update contact_imports i
   set state = 'running', attempts = i.attempts + 1, lease_until = $2, started_at = coalesce(i.started_at, $1),
       updated_at = $1
 where (i.company_id, i.id) = (
         select o.company_id, o.id from contact_imports o
          where o.state in ('queued', 'running')
            and (o.state = 'running' and o.lease_until < $1
                 or o.state = 'queued' and not exists (
                      select from contact_imports r where r.company_id = o.company_id and r.state = 'running'))
          order by o.state = 'running' desc, o.id
          limit 1
            for update skip locked)
returning company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at;

-- contactImports.claimById
update contact_imports i
   set state = 'running', attempts = i.attempts + 1, lease_until = $4, started_at = coalesce(i.started_at, $3),
       updated_at = $3
 where i.company_id = (select $1::bigint) and i.id = $2 and i.state = 'queued'
   and not exists (select from contact_imports r where r.company_id = i.company_id and r.state = 'running')
returning company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at;

-- contactImports.chunk
select data from contact_import_chunks where company_id = (select $1::bigint) and import_id = $2 and seq = $3;

-- contactImports.progress
update contact_imports
   set rows_done = $4, bytes_done = $5, created_count = created_count + $6, updated_count = updated_count + $7,
       skipped_count = skipped_count + $8, rejected_count = rejected_count + $9, lease_until = $10, updated_at = $11
 where company_id = (select $1::bigint) and id = $2 and state = 'running' and attempts = $3
returning id;

-- contactImports.insertRejections
insert into contact_import_rejections (company_id, import_id, line, raw, reasons)
select $1, $2, r.line, r.raw, r.reasons
  from unnest($3::bigint[], $4::text[], $5::text[]) as r(line, raw, reasons)
on conflict do nothing;

-- contactImports.rejections
select line::float8 as line, raw, reasons from contact_import_rejections
 where company_id = (select $1::bigint) and import_id = $2 and line > $3
 order by line limit $4;

-- contactImports.finish
update contact_imports
   set state = $4, failure = $5, lease_until = null, finished_at = $6, updated_at = $6
 where company_id = (select $1::bigint) and id = $2 and state = 'running' and attempts = $3
returning company_id, id, user_id, file_name, file_bytes::float8 as file_bytes, state, dry_run, options,
    rows_done::float8 as rows_done, bytes_done::float8 as bytes_done, created_count::float8 as created_count,
    updated_count::float8 as updated_count, skipped_count::float8 as skipped_count,
    rejected_count::float8 as rejected_count, attempts, failure, started_at, finished_at, created_at, updated_at;

-- contactImports.release
update contact_imports set lease_until = $4
 where company_id = (select $1::bigint) and id = $2 and state = 'running' and attempts = $3;

-- contactImports.deleteChunks
delete from contact_import_chunks where company_id = (select $1::bigint) and import_id = $2;

-- contactImports.batchTimeout
select set_config('statement_timeout', $1::text, true) as set;
