-- The contacts of an email, any company's, live or deleted: the batch upsert's lookups by
-- email (contacts.batch.sql.ts, contactsOfEmails) read this index with the email as their
-- only condition, so that no other index can take them. Given the company and
-- `deleted_at is null` too, a database without statistics (a fresh install, no autovacuum)
-- tied the company's partial indexes with the email key (contacts_company_email_live_key),
-- every one estimated at a row or so, and walked the whole company for each email: a contact
-- import slowed down as the table grew, to seconds a batch (docs/performance.md, "Contact
-- import and export"). The company second: the lookups of one company's email that other
-- statements make can take it whole.
CREATE INDEX "contacts_email_company_idx" ON "contacts" USING btree (lower("email"), "company_id");
