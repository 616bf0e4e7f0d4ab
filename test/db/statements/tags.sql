-- tags.delete
with gone as (
     delete from tags where company_id = $1 and id = $2 returning id, name
   )
   insert into contact_events (company_id, contact_id, kind, user_id, data, occurred_at)
   select ct.company_id, ct.contact_id, 'tag_removed', $3,
          jsonb_build_object('tag_id', gone.id, 'name', gone.name, 'reason', 'tag_deleted'), $4
     from gone
     join contact_tags ct on ct.company_id = $1 and ct.tag_id = gone.id
     join contacts c on c.company_id = ct.company_id and c.id = ct.contact_id
    where c.deleted_at is null
    order by ct.contact_id;

-- tags.insert
insert into tags (company_id, name, color, created_at, updated_at) values ($1, $2, $3, $4, $4) returning id, name, color, created_at, updated_at;

-- tags.list
select id, name, color, created_at, updated_at from tags where company_id = $1 order by id;

-- tags.lock
select id from tags where company_id = $1 and id = $2 for update;

-- tags.update
update tags set name = $3, color = $4, updated_at = $5 where company_id = $1 and id = $2 returning id, name, color, created_at, updated_at;
