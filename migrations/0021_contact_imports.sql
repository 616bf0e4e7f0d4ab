-- Contact imports (issue 42, docs/import-export.md). An uploaded CSV file is kept in the
-- database, in chunks of at most 1 MiB (contact_import_chunks), until its import ends: every
-- instance that shares the database can run or resume it after a restart, and neither the
-- upload nor the worker ever holds more than a chunk of it in memory. The worker claims an
-- import with a lease (lease_until), renewed with every batch it commits; an import whose
-- lease ran out is claimed again and resumes after rows_done, the data rows its committed
-- batches covered. One import runs at a time per company (the partial unique index); the
-- others wait queued. An import uploaded in the workspace waits as a draft until its mapping is
-- confirmed on the preview page. Rejected rows stay, with their line in the file and the reasons. The
-- chunks are stored uncompressed (STORAGE EXTERNAL): compressing 1 MiB per chunk cost more CPU
-- than the disk it saved for a file that lives minutes.
CREATE TABLE "contact_imports" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "contact_imports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"file_name" varchar(255) NOT NULL,
	"file_bytes" bigint NOT NULL,
	"state" varchar(16) NOT NULL,
	"dry_run" boolean NOT NULL,
	"options" json NOT NULL,
	"rows_done" bigint DEFAULT 0 NOT NULL,
	"bytes_done" bigint DEFAULT 0 NOT NULL,
	"created_count" bigint DEFAULT 0 NOT NULL,
	"updated_count" bigint DEFAULT 0 NOT NULL,
	"skipped_count" bigint DEFAULT 0 NOT NULL,
	"rejected_count" bigint DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"failure" text,
	"lease_until" timestamp (3) with time zone,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "contact_imports_company_id_id_pk" PRIMARY KEY("company_id","id"),
	CONSTRAINT "contact_imports_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "contact_imports_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "contact_imports_state_check" CHECK ("state" IN ('draft', 'queued', 'running', 'done', 'failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "contact_imports_running_key" ON "contact_imports" USING btree ("company_id") WHERE "state" = 'running';--> statement-breakpoint
-- The worker's claim: the few imports not finished, oldest first (with the company, so that a
-- statement by primary key that the planner brings here compares both keys in the index).
CREATE INDEX "contact_imports_open_idx" ON "contact_imports" USING btree ("id","company_id") WHERE "state" IN ('queued', 'running');--> statement-breakpoint--> statement-breakpoint
CREATE TABLE "contact_import_chunks" (
	"company_id" bigint NOT NULL,
	"import_id" bigint NOT NULL,
	"seq" integer NOT NULL,
	"data" bytea NOT NULL,
	CONSTRAINT "contact_import_chunks_pk" PRIMARY KEY("company_id","import_id","seq"),
	CONSTRAINT "contact_import_chunks_import_fk" FOREIGN KEY ("company_id","import_id") REFERENCES "public"."contact_imports"("company_id","id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
ALTER TABLE "contact_import_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;--> statement-breakpoint
CREATE TABLE "contact_import_rejections" (
	"company_id" bigint NOT NULL,
	"import_id" bigint NOT NULL,
	"line" bigint NOT NULL,
	"raw" text NOT NULL,
	"reasons" text NOT NULL,
	CONSTRAINT "contact_import_rejections_pk" PRIMARY KEY("company_id","import_id","line"),
	CONSTRAINT "contact_import_rejections_import_fk" FOREIGN KEY ("company_id","import_id") REFERENCES "public"."contact_imports"("company_id","id") ON DELETE cascade ON UPDATE no action
);
