-- contacts.byId
select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from contact_tags ct
                      join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                     where ct.company_id = c.company_id and ct.contact_id = c.id), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from contact_custom_values v
                      join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                     where v.company_id = c.company_id and v.contact_id = c.id), '[]') as custom_fields,
          c.created_at, c.updated_at
     from contacts c
    where c.company_id = $1 and c.id = $2 and c.deleted_at is null;

-- contacts.page
with total as (
       select coalesce((select value from counters where company_id = $1 and list = $2 and key = $3), 0) as n
     )
     select total.n as total, p.*
       from total
       left join lateral (
         select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from contact_tags ct
                      join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                     where ct.company_id = c.company_id and ct.contact_id = c.id), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from contact_custom_values v
                      join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                     where v.company_id = c.company_id and v.contact_id = c.id), '[]') as custom_fields,
          c.created_at, c.updated_at
           from contacts c
          where c.company_id = $1 and c.id = any(array(select id from contacts where company_id = $1 and deleted_at is null order by id limit $4 offset $5))
            and $5 < total.n
          order by c.id
       ) p on true;

-- contacts.pageOfUser
with total as (
       select coalesce((select value from counters where company_id = $1 and list = $2 and key = $3), 0) as n
     )
     select total.n as total, p.*
       from total
       left join lateral (
         select c.id, c.user_id, c.first_name, c.last_name, c.email, c.business, c.position, c.telephone,
          c.cellphone, c.address, c.city, c.state, c.country, c.url, c.linkedin, c.variable1,
          c.variable2, c.variable3, c.carousel, c.stage, c.contact_group_id,
          coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by t.id)
                      from contact_tags ct
                      join tags t on t.company_id = ct.company_id and t.id = ct.tag_id
                     where ct.company_id = c.company_id and ct.contact_id = c.id), '[]') as tags,
          coalesce((select json_agg(json_build_object('field', f.field, 'value', v.value) order by f.id)
                      from contact_custom_values v
                      join custom_fields f on f.company_id = v.company_id and f.id = v.custom_field_id
                     where v.company_id = c.company_id and v.contact_id = c.id), '[]') as custom_fields,
          c.created_at, c.updated_at
           from contacts c
          where c.company_id = $1 and c.id = any(array(select id from contacts where company_id = $1 and user_id = $6 and deleted_at is null order by id limit $4 offset $5))
            and $5 < total.n
          order by c.id
       ) p on true;
