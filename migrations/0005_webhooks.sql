ALTER TABLE "webhook_subscriptions" ADD COLUMN "failing_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "first_attempt_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("company_id","event_id");--> statement-breakpoint
ALTER TABLE "api_events" ADD COLUMN "fanned_out" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "api_events_unfanned_idx" ON "api_events" USING btree ("id") WHERE "api_events"."fanned_out" = false;
