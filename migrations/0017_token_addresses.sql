-- Audit records of api token use (issue 28; docs/audit-log.md), written off the request path:
-- 1. api_tokens.expiry_refusal_recorded_at: set by the statement that records the first
--    refusal of an expired token, and its guard (set only while null), so each instance
--    racing to record it finds it set but one: exactly one `api_token.expired_refused`.
-- 2. api_token_addresses: the client addresses each token was used from, with when each was
--    last seen, upserted by the last-used flush (src/modules/auth/last-used.ts, once a minute
--    per process). An address not seen for the token in 30 days is recorded
--    (`api_token.used_from_new_address`) in that same statement. Keyed by company as every
--    tenant table (Citus-ready); removed with its token.
ALTER TABLE "api_tokens" ADD COLUMN "expiry_refusal_recorded_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE TABLE "api_token_addresses" (
	"company_id" bigint NOT NULL,
	"token_id" bigint NOT NULL,
	"ip" varchar(64) NOT NULL,
	"first_seen_at" timestamp (3) with time zone NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "api_token_addresses_company_id_token_id_ip_pk" PRIMARY KEY("company_id","token_id","ip"),
	CONSTRAINT "api_token_addresses_token_fk" FOREIGN KEY ("company_id","token_id") REFERENCES "public"."api_tokens"("company_id","id") ON DELETE cascade ON UPDATE no action
);
