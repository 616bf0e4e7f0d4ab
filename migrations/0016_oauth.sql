-- OAuth 2.0 for third-party apps (issue 27 item 5, docs/access-control.md "OAuth 2.0").
-- An admin registers an app (oauth_apps); a user's consent is a grant (oauth_grants), made
-- with its one-time code (oauth_codes); its access tokens are api_tokens rows carrying the grant (so the one
-- token lookup of every request, the cache, the expiry check, the rate limit, idempotency and
-- "last used" serve them unchanged); its refresh tokens rotate (oauth_refresh_tokens).
-- Secrets, codes and tokens are stored as SHA-256 hashes only. An app is registered by one
-- company (company_id) and may be authorised by users of any company: grants, codes and
-- refresh tokens belong to the consenting user's company and name the app by
-- (app_company_id, app_id). oauth_apps is the one reference table (a copy on every node under
-- Citus: small, read on consent and token exchange); the two other global keys are lookups
-- by a secret's hash before the company is known (docs/scaling.md, "Global lookups").
CREATE TABLE "oauth_apps" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "oauth_apps_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"client_id" varchar(64) NOT NULL,
	"name" varchar(255) NOT NULL,
	"redirect_uris" text[] NOT NULL,
	"scopes" text[] NOT NULL,
	"secret_hash" text,
	"previous_secret_hash" text,
	"previous_secret_expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_apps_company_id_id_pk" PRIMARY KEY("company_id","id"),
	CONSTRAINT "oauth_apps_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oauth_apps_redirect_uris_check" CHECK (cardinality("redirect_uris") > 0),
	CONSTRAINT "oauth_apps_scopes_check" CHECK (cardinality("scopes") > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_apps_client_id_key" ON "oauth_apps" USING btree ("client_id");
--> statement-breakpoint
CREATE TABLE "oauth_grants" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "oauth_grants_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"app_company_id" bigint NOT NULL,
	"app_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "oauth_grants_company_id_id_pk" PRIMARY KEY("company_id","id"),
	CONSTRAINT "oauth_grants_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oauth_grants_app_fk" FOREIGN KEY ("app_company_id","app_id") REFERENCES "public"."oauth_apps"("company_id","id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oauth_grants_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX "oauth_grants_company_user_idx" ON "oauth_grants" USING btree ("company_id","user_id");
--> statement-breakpoint
CREATE INDEX "oauth_grants_app_idx" ON "oauth_grants" USING btree ("app_company_id","app_id");
--> statement-breakpoint
CREATE TABLE "oauth_codes" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "oauth_codes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"app_company_id" bigint NOT NULL,
	"app_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"code_hash" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" varchar(128) NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"grant_id" bigint NOT NULL,
	CONSTRAINT "oauth_codes_company_id_id_pk" PRIMARY KEY("company_id","id"),
	CONSTRAINT "oauth_codes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oauth_codes_app_fk" FOREIGN KEY ("app_company_id","app_id") REFERENCES "public"."oauth_apps"("company_id","id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oauth_codes_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oauth_codes_grant_fk" FOREIGN KEY ("company_id","grant_id") REFERENCES "public"."oauth_grants"("company_id","id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_codes_code_hash_key" ON "oauth_codes" USING btree ("code_hash");
--> statement-breakpoint
CREATE TABLE "oauth_refresh_tokens" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "oauth_refresh_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"grant_id" bigint NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_refresh_tokens_company_id_id_pk" PRIMARY KEY("company_id","id"),
	CONSTRAINT "oauth_refresh_tokens_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "oauth_refresh_tokens_grant_fk" FOREIGN KEY ("company_id","grant_id") REFERENCES "public"."oauth_grants"("company_id","id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_refresh_tokens_token_hash_key" ON "oauth_refresh_tokens" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX "oauth_refresh_tokens_grant_idx" ON "oauth_refresh_tokens" USING btree ("company_id","grant_id");
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "oauth_grant_id" bigint;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_oauth_grant_fk" FOREIGN KEY ("company_id","oauth_grant_id") REFERENCES "public"."oauth_grants"("company_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "api_tokens_oauth_grant_idx" ON "api_tokens" USING btree ("company_id","oauth_grant_id") WHERE "oauth_grant_id" IS NOT NULL;
