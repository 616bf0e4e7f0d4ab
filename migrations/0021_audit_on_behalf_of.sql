-- An OAuth app acts for the user who authorised it (issue 38): its records name that user
-- too, as they were when the app acted (docs/audit-log.md, `actor.on_behalf_of`). Null for
-- every other actor, and for the records written before.
ALTER TABLE "audit_events" ADD COLUMN "on_behalf_of_id" bigint;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "on_behalf_of_label" varchar(255);
