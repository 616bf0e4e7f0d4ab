-- Citus-ready keys: the outbox's primary key leads with company_id as every tenant table's
-- does (test/db/distribution.test.ts, docs/scaling.md). Its (company_id, id) index becomes the
-- key; the publisher's sweep across companies (order by id) reads a plain index on id. The
-- outbox holds only events not yet published (a few rows), so this is instant.
ALTER TABLE "api_event_outbox" DROP CONSTRAINT "api_event_outbox_pkey";--> statement-breakpoint
ALTER TABLE "api_event_outbox" ADD CONSTRAINT "api_event_outbox_company_id_id_pk" PRIMARY KEY("company_id","id");--> statement-breakpoint
DROP INDEX "api_event_outbox_company_idx";--> statement-breakpoint
CREATE INDEX "api_event_outbox_id_idx" ON "api_event_outbox" USING btree ("id");
