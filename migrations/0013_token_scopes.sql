-- Scoped api tokens (docs/access-control.md): the scopes chosen for a token (null: full
-- access, what every token made before keeps) and when it stops working (null: never).
-- Both travel with the token lookup that already happens on every request.
ALTER TABLE "api_tokens" ADD COLUMN "scopes" text[];
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "expires_at" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_scopes_check" CHECK ("scopes" IS NULL OR cardinality("scopes") > 0);
