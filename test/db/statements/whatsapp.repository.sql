-- Statements of src/modules/whatsapp/whatsapp.repository.ts, as run (test/db/statements.test.ts writes this file).

-- whatsapp.liveContacts
select id from contacts where company_id = $1 and id = any($2::bigint[]) and deleted_at is null;

-- whatsapp.companyUsers
select id from users where company_id = $1 and id = any($2::bigint[]);

-- whatsapp.insertMessages
insert into whatsapp_messages (company_id, contact_id, user_id, direction, status, body, sent_at)
select $1, m.contact_id, m.user_id, m.direction, m.status, m.body, m.sent_at
  from unnest($2::bigint[], $3::bigint[], $4::whatsapp_direction[], $5::whatsapp_status[], $6::text[], $7::timestamptz[])
         with ordinality as m(contact_id, user_id, direction, status, body, sent_at, n)
 order by m.n
returning id, contact_id, user_id, direction, body, status, sent_at, created_at, updated_at;

-- whatsapp.foldChats
insert into whatsapp_chats (company_id, contact_id, user_id, messages_count, last_message_id, last_message_at)
select $1, * from unnest($2::bigint[], $3::bigint[], $4::integer[], $5::bigint[], $6::timestamptz[])
on conflict (company_id, contact_id, user_id) do update set
  messages_count = whatsapp_chats.messages_count + excluded.messages_count,
  last_message_id = case
    when (excluded.last_message_at, excluded.last_message_id) > (whatsapp_chats.last_message_at, whatsapp_chats.last_message_id)
    then excluded.last_message_id else whatsapp_chats.last_message_id end,
  last_message_at = greatest(excluded.last_message_at, whatsapp_chats.last_message_at);

-- whatsapp.messages
with contact as materialized (
  select exists(select 1 from contacts where company_id = $1 and id = $2 and deleted_at is null) as found
),
total as materialized (
  select coalesce((select sum(messages_count) from whatsapp_chats
                    where company_id = $1 and contact_id = $2), 0)::int as n
),
page as materialized (
  select case when not (select found from contact) or $4::bigint >= (select n from total) then '{}'::bigint[]
            when $4::bigint < (select n from total) - $4::bigint then array(select id from whatsapp_messages
           where company_id = $1 and contact_id = $2
           order by sent_at desc nulls last, id desc nulls last limit $3 offset $4::bigint)
            else array(select id from whatsapp_messages
           where company_id = $1 and contact_id = $2
           order by sent_at asc nulls first, id asc nulls first limit greatest(least($3, (select n from total) - $4::bigint), 0) offset greatest((select n from total) - $4::bigint - $3, 0))
       end as ids
)
select contact.found, total.n as total, p.*
  from contact cross join total
  left join lateral (
    select id, contact_id, user_id, direction, body, status, sent_at, created_at, updated_at from whatsapp_messages
     where company_id = (select $1::bigint) and id = any((select ids from page)::bigint[])
     order by sent_at desc, id desc
  ) p on true;

-- whatsapp.messagesOfUser
with contact as materialized (
  select exists(select 1 from contacts where company_id = $1 and id = $2 and deleted_at is null) as found
),
total as materialized (
  select coalesce((select sum(messages_count) from whatsapp_chats
                    where company_id = $1 and contact_id = $2 and user_id = $5), 0)::int as n
),
page as materialized (
  select case when not (select found from contact) or $4::bigint >= (select n from total) then '{}'::bigint[]
            when $4::bigint < (select n from total) - $4::bigint then array(select id from whatsapp_messages
           where company_id = $1 and contact_id = $2 and user_id = $5
           order by sent_at desc nulls last, id desc nulls last limit $3 offset $4::bigint)
            else array(select id from whatsapp_messages
           where company_id = $1 and contact_id = $2 and user_id = $5
           order by sent_at asc nulls first, id asc nulls first limit greatest(least($3, (select n from total) - $4::bigint), 0) offset greatest((select n from total) - $4::bigint - $3, 0))
       end as ids
)
select contact.found, total.n as total, p.*
  from contact cross join total
  left join lateral (
    select id, contact_id, user_id, direction, body, status, sent_at, created_at, updated_at from whatsapp_messages
     where company_id = (select $1::bigint) and id = any((select ids from page)::bigint[])
     order by sent_at desc, id desc
  ) p on true;

-- whatsapp.walk (replica: src/db/replica.ts)
select to_char((m.updated_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as sync_at, m.id, m.contact_id, m.user_id, m.direction, m.body, m.status, m.sent_at, m.created_at, m.updated_at
  from whatsapp_messages m
 where m.company_id = (select $1::bigint)
   and (m.updated_at, m.id) > ($2::timestamptz, $3::bigint)
   and m.updated_at < least($4::timestamptz, $5::timestamptz)
   and exists (select 1 from contacts c where c.company_id = m.company_id and c.id = m.contact_id and c.deleted_at is null)
 order by m.updated_at, m.id
 limit $6;

-- whatsapp.chats
with contact as materialized (
  select exists(select 1 from contacts where company_id = $1 and id = $2 and deleted_at is null) as found
),
chats as materialized (
  select contact_id, user_id, messages_count, last_message_id, last_message_at
    from whatsapp_chats
   where company_id = $1 and contact_id = $2 and (select found from contact)
)
select contact.found, (select count(*) from chats)::int as total, p.*
  from contact
  left join lateral (
    select c.contact_id, c.user_id, c.messages_count, (select row_to_json(j) from (select m.id, m.contact_id, m.user_id, m.direction, m.body, m.status, to_char(m.sent_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as sent_at, to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(m.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as last_message, c.last_message_at
      from (select * from chats order by last_message_at desc, last_message_id desc limit $3 offset $4::bigint) c
      join whatsapp_messages m on m.company_id = (select $1::bigint) and m.id = c.last_message_id
     order by c.last_message_at desc, c.last_message_id desc
  ) p on true;

-- whatsapp.chatsOfUser
with contact as materialized (
  select exists(select 1 from contacts where company_id = $1 and id = $2 and deleted_at is null) as found
),
chats as materialized (
  select contact_id, user_id, messages_count, last_message_id, last_message_at
    from whatsapp_chats
   where company_id = $1 and contact_id = $2 and user_id = $5 and (select found from contact)
)
select contact.found, (select count(*) from chats)::int as total, p.*
  from contact
  left join lateral (
    select c.contact_id, c.user_id, c.messages_count, (select row_to_json(j) from (select m.id, m.contact_id, m.user_id, m.direction, m.body, m.status, to_char(m.sent_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as sent_at, to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, to_char(m.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at) j) as last_message, c.last_message_at
      from (select * from chats order by last_message_at desc, last_message_id desc limit $3 offset $4::bigint) c
      join whatsapp_messages m on m.company_id = (select $1::bigint) and m.id = c.last_message_id
     order by c.last_message_at desc, c.last_message_id desc
  ) p on true;
