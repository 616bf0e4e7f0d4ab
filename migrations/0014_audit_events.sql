-- The audit log (issue 28, docs/audit-log.md): who did what, when, from where. Append-only:
-- the service inserts rows (src/modules/audit) and only the retention job deletes them.
-- Like every tenant table its key and indexes lead with company_id (Citus-ready). Rows keep
-- labels, not references, of their actor and target: a record outlives a deleted user or
-- webhook. The action's first segment is the target's type (`api_token.created` → api_token),
-- so a prefix filter of `action` is the target type index.
-- Each index serves the newest-first list with one filter leading it, (occurred_at, id)
-- after it as the order and the cursor: docs/performance.md, "Audit log".
CREATE TABLE "audit_events" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "audit_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"action" varchar(64) NOT NULL,
	"actor_type" varchar(16) NOT NULL,
	"actor_id" bigint,
	"actor_label" varchar(255),
	"target_type" varchar(32) NOT NULL,
	"target_id" bigint,
	"target_label" varchar(255),
	"outcome" varchar(8) NOT NULL,
	"reason" varchar(64),
	"ip" varchar(64),
	"user_agent" varchar(512),
	"request_id" varchar(128),
	"changes" json,
	CONSTRAINT "audit_events_company_id_id_pk" PRIMARY KEY("company_id","id"),
	CONSTRAINT "audit_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "audit_events_action_target_check" CHECK (split_part("action", '.', 1) = "target_type"),
	CONSTRAINT "audit_events_outcome_check" CHECK (("outcome" = 'success' AND "reason" IS NULL) OR ("outcome" = 'failure' AND "reason" IS NOT NULL)),
	CONSTRAINT "audit_events_actor_type_check" CHECK ("actor_type" IN ('user', 'api_token', 'oauth_app', 'cli', 'system'))
);
--> statement-breakpoint
CREATE INDEX "audit_events_time_idx" ON "audit_events" USING btree ("company_id","occurred_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_action_idx" ON "audit_events" USING btree ("company_id","action","occurred_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_target_type_idx" ON "audit_events" USING btree ("company_id","target_type","occurred_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_target_idx" ON "audit_events" USING btree ("company_id","target_type","target_id","occurred_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_actor_type_idx" ON "audit_events" USING btree ("company_id","actor_type","occurred_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_actor_idx" ON "audit_events" USING btree ("company_id","actor_type","actor_id","occurred_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_failure_idx" ON "audit_events" USING btree ("company_id","occurred_at","id") WHERE "outcome" = 'failure';
