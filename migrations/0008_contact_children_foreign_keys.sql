-- Foreign keys a contact's history, tags and custom values paid for on every row written:
-- - their own key to companies: their cascading same-company key to contacts already says
--   the company exists and removes them with it (src/db/schema.ts, companyIdOfContact);
-- - contact_events.user_id to users: the actor of a history row, the caller, like an audit
--   log's; users are never deleted.
-- Each was a lookup and a lock of a row every writer of the company shares, per row written
-- (about a tenth of a batch import's database time; docs/performance.md).
ALTER TABLE "contact_custom_values" DROP CONSTRAINT "contact_custom_values_company_id_companies_id_fk";
--> statement-breakpoint
ALTER TABLE "contact_events" DROP CONSTRAINT "contact_events_company_id_companies_id_fk";
--> statement-breakpoint
ALTER TABLE "contact_events" DROP CONSTRAINT "contact_events_user_fk";
--> statement-breakpoint
ALTER TABLE "contact_tags" DROP CONSTRAINT "contact_tags_company_id_companies_id_fk";
