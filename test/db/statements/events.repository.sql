-- Statements of src/modules/events/events.repository.ts, as run (test/db/statements.test.ts writes this file).

-- events.insert
insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
select $1, e.contact_id, e.kind, e.user_id, e.data, coalesce(e.occurred_at, now())
  from unnest($2::bigint[], $3::contact_event_kind[], $4::bigint[], $5::jsonb[], $6::timestamptz[])
       with ordinality as e(contact_id, kind, user_id, data, occurred_at, n)
 order by e.n;

-- events.contactPage
with total as materialized (
  select exists (select from contacts c
                  where c.company_id = (select $1::bigint) and c.id = $2 and c.deleted_at is null) as live,
         (select count(*) from contact_events
           where company_id = (select $1::bigint) and contact_id = $2) as n
)
select total.live, total.n as total, p.*
  from total
  left join lateral (
    select e.id, e.contact_id, e.kind, e.user_id, e.data, e.occurred_at,
           e.occurred_at as created_at, e.occurred_at as updated_at
      from unnest(case when $4::bigint < total.n - $4::bigint then array(select id from contact_events
                                    where company_id = (select $1::bigint) and contact_id = $2
                                    order by id desc limit $3 offset $4::bigint)
              else array(select id from contact_events
                                    where company_id = (select $1::bigint) and contact_id = $2
                                    order by id limit greatest(least($3, total.n - $4::bigint), 0) offset greatest(total.n - $4::bigint - $3, 0))
         end) as page_ids(page_id)
       cross join lateral (select * from contact_events where company_id = (select $1::bigint) and id = page_ids.page_id limit 1) e
     where $4::bigint < total.n
       and total.live
     order by e.id desc
  ) p on true;
