-- The write builder's statements (src/modules/contacts/contacts.batch.sql.ts: a POST, a PUT, a
-- batch) record what the trigger contacts_listed (0026, 0027) records after they insert or
-- change contacts: each contact's search change and the counters by stage and by owner and
-- stage, in the statement's one counters upsert. Their transactions say so (SET LOCAL
-- engage.contacts_listed_by = 'statement', contactWriteTransaction) and the trigger does not
-- fire for them, as it was a PL/pgSQL call with statements of its own after every write
-- (what it cost: docs/performance.md, "Contacts listed by their write statement"). Every other
-- write of contacts (a deletion, demo data, the generator, an operator's SQL) is listed by the
-- trigger as before.
DROP TRIGGER "contacts_listed_inserted" ON "contacts";--> statement-breakpoint
CREATE TRIGGER "contacts_listed_inserted" AFTER INSERT ON "contacts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
  WHEN (current_setting('engage.contacts_listed_by', true) IS DISTINCT FROM 'statement')
  EXECUTE FUNCTION contacts_listed();--> statement-breakpoint
DROP TRIGGER "contacts_listed_updated" ON "contacts";--> statement-breakpoint
CREATE TRIGGER "contacts_listed_updated" AFTER UPDATE ON "contacts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  WHEN (current_setting('engage.contacts_listed_by', true) IS DISTINCT FROM 'statement')
  EXECUTE FUNCTION contacts_listed();
