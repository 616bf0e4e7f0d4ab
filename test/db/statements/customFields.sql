-- customFields.delete
delete from custom_fields where company_id = $1 and id = $2 returning id;

-- customFields.exists
select id from custom_fields where company_id = $1 and id = $2;

-- customFields.insert
insert into custom_fields (company_id, field, kind, options, created_at, updated_at)
   values ($1, $2, $3, $4::jsonb, $5, $5)
   returning id, field, kind, options, created_at, updated_at;

-- customFields.list
select id, field, kind, options, created_at, updated_at from custom_fields where company_id = $1 order by id;

-- customFields.update
update custom_fields
      set field = $3, kind = $4, options = coalesce($5::jsonb, options), updated_at = $6
    where company_id = $1 and id = $2
      and ($5::jsonb is not null or $4::custom_field_kind <> 'dropdown' or jsonb_array_length(options) > 0)
   returning id, field, kind, options, created_at, updated_at;
