-- Writers of one company stop queueing on two rows they all updated and held until COMMIT
-- (docs/performance.md §4):
-- 1. Events are numbered after commit: a write inserts into api_event_outbox, and publishing
--    (src/modules/webhooks/publish.ts) moves committed rows into api_events with their id and
--    sequence, making their deliveries in the same statement. api_events.fanned_out goes:
--    every row of api_events is published, so fanned out. Events recorded before this
--    migration and not yet fanned out get their deliveries here first, as the worker would.
CREATE TABLE "api_event_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "api_event_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"company_id" bigint NOT NULL,
	"type" varchar(64) NOT NULL,
	"data" json NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "api_event_outbox_company_idx" ON "api_event_outbox" USING btree ("company_id","id");--> statement-breakpoint
INSERT INTO "webhook_deliveries" ("company_id", "subscription_id", "event_id", "next_attempt_at", "created_at")
SELECT e."company_id", s."id", e."id", e."created_at", e."created_at"
  FROM "api_events" e
  JOIN "webhook_subscriptions" s
    ON s."company_id" = e."company_id" AND s."enabled"
   AND (e."type" = ANY (s."events") OR '*' = ANY (s."events"))
 WHERE NOT e."fanned_out"
 ORDER BY e."id", s."id";--> statement-breakpoint
DROP INDEX "api_events_unfanned_idx";--> statement-breakpoint
ALTER TABLE "api_events" DROP COLUMN "fanned_out";--> statement-breakpoint
-- 2. Counters get a slot: a total is the sum of its rows, and the company's contacts
--    counters are spread over slots (src/db/counters.ts). Existing rows are slot 0.
ALTER TABLE "counters" ADD COLUMN "slot" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "counters" DROP CONSTRAINT "counters_company_id_list_key_pk";--> statement-breakpoint
ALTER TABLE "counters" ADD CONSTRAINT "counters_company_id_list_key_slot_pk" PRIMARY KEY("company_id","list","key","slot");
