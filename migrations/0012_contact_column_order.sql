-- Contacts' columns in a new physical order: what a pass over the rows tests first
-- (company_id, id, user_id, deleted_at, search_text), the rest after. PostgreSQL reads a
-- row's columns in order up to the last one a query needs, so a 1–2 character search's count
-- (one pass over the company's live contacts, docs/performance.md §3), which needs
-- search_text, decoded 26 columns of every row to reach it: at 1 M contacts a third of the
-- pass (155 → 110 ms). PostgreSQL cannot move a column, so the table is made again, rows,
-- ids, identity sequence, indexes, statistics and every key to and from it as they were.
-- Under an exclusive lock, like 0007: about 20 s for 1 M contacts and their children.
LOCK TABLE "contacts" IN ACCESS EXCLUSIVE MODE;
--> statement-breakpoint
CREATE TABLE "contacts_reordered" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1) NOT NULL,
	"user_id" bigint NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	"search_text" text GENERATED ALWAYS AS (lower("first_name" || ' ' || coalesce("last_name", '')) || E'\x1f' || lower(coalesce("business", '')) || E'\x1f' || lower("email")) STORED,
	"first_name" varchar(255) NOT NULL,
	"last_name" varchar(255),
	"email" varchar(255) NOT NULL,
	"business" varchar(255),
	"business_id" bigint,
	"position" varchar(255),
	"telephone" varchar(255),
	"cellphone" varchar(255),
	"address" varchar(1000),
	"city" varchar(255),
	"state" varchar(255),
	"country" varchar(255),
	"url" varchar(255),
	"linkedin" varchar(255),
	"variable1" varchar(255),
	"variable2" varchar(255),
	"variable3" varchar(255),
	"carousel" boolean DEFAULT false NOT NULL,
	"stage" "contact_stage",
	"contact_group_id" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
INSERT INTO "contacts_reordered" ("company_id", "id", "user_id", "deleted_at", "first_name", "last_name", "email",
  "business", "business_id", "position", "telephone", "cellphone", "address", "city", "state", "country", "url",
  "linkedin", "variable1", "variable2", "variable3", "carousel", "stage", "contact_group_id", "created_at", "updated_at")
OVERRIDING SYSTEM VALUE
SELECT "company_id", "id", "user_id", "deleted_at", "first_name", "last_name", "email",
  "business", "business_id", "position", "telephone", "cellphone", "address", "city", "state", "country", "url",
  "linkedin", "variable1", "variable2", "variable3", "carousel", "stage", "contact_group_id", "created_at", "updated_at"
  FROM "contacts";
--> statement-breakpoint
-- The next id continues from the old sequence, not from the largest id kept (ids of rolled
-- back inserts are never given out again).
SELECT setval(pg_get_serial_sequence('contacts_reordered', 'id'), "last_value", "is_called") FROM "contacts_id_seq";
--> statement-breakpoint
-- Drops the keys of the eight tables that point at contacts, made again below.
DROP TABLE "contacts" CASCADE;
--> statement-breakpoint
ALTER TABLE "contacts_reordered" RENAME TO "contacts";
--> statement-breakpoint
ALTER SEQUENCE "contacts_reordered_id_seq" RENAME TO "contacts_id_seq";
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_company_id_id_pk" PRIMARY KEY ("company_id", "id");
--> statement-breakpoint
CREATE INDEX "contacts_company_business_idx" ON "contacts" USING btree ("company_id", "business_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_company_email_live_key" ON "contacts" USING btree ("company_id", lower("email")) WHERE "deleted_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "contacts_company_live_idx" ON "contacts" USING btree ("company_id", "id") WHERE "deleted_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "contacts_company_updated_idx" ON "contacts" USING btree ("company_id", "updated_at", "id");
--> statement-breakpoint
CREATE INDEX "contacts_company_user_live_idx" ON "contacts" USING btree ("company_id", "user_id", "id") WHERE "deleted_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("company_id", "user_id", "search_text" gin_trgm_ops) WHERE "deleted_at" IS NULL;
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_user_fk" FOREIGN KEY ("company_id", "user_id") REFERENCES "users"("company_id", "id");
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_business_fk" FOREIGN KEY ("company_id", "business_id") REFERENCES "businesses"("company_id", "id");
--> statement-breakpoint
ALTER TABLE "contact_custom_values" ADD CONSTRAINT "contact_custom_values_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "contact_events" ADD CONSTRAINT "contact_events_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "contact_tags" ADD CONSTRAINT "contact_tags_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id") ON DELETE CASCADE;
--> statement-breakpoint
ALTER TABLE "flow_enrollments" ADD CONSTRAINT "flow_enrollments_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id");
--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id");
--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id");
--> statement-breakpoint
ALTER TABLE "whatsapp_chats" ADD CONSTRAINT "whatsapp_chats_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id");
--> statement-breakpoint
ALTER TABLE "whatsapp_messages" ADD CONSTRAINT "whatsapp_messages_contact_fk" FOREIGN KEY ("company_id", "contact_id") REFERENCES "contacts"("company_id", "id");
--> statement-breakpoint
CREATE STATISTICS "contacts_lower_email_stats" ON (lower("email")) FROM "contacts";
--> statement-breakpoint
ANALYZE "contacts";
