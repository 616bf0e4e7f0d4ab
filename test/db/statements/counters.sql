-- Statements of src/db/counters.ts, as run (test/db/statements.test.ts writes this file).

-- counters.adjust
insert into counters (company_id, list, key, value)
values ($1, $2, $3, $4)
    on conflict (company_id, list, key, slot) do update set value = counters.value + excluded.value;
