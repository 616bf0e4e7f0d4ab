CREATE TYPE "public"."contact_event_kind" AS ENUM('contact_created', 'contact_updated', 'stage_changed', 'tag_added', 'tag_removed', 'added_to_flow', 'task_completed', 'meet_transcription_linked', 'contact_deleted');--> statement-breakpoint
CREATE TYPE "public"."contact_stage" AS ENUM('smart_lead', 'prospect', 'lead', 'mql', 'sql', 'opportunity', 'client', 'lost');--> statement-breakpoint
CREATE TYPE "public"."custom_field_kind" AS ENUM('input', 'textarea', 'email', 'telephone', 'date', 'dropdown');--> statement-breakpoint
CREATE TYPE "public"."flow_enrollment_status" AS ENUM('active', 'finished', 'removed');--> statement-breakpoint
CREATE TYPE "public"."flow_status" AS ENUM('active', 'paused');--> statement-breakpoint
CREATE TYPE "public"."whatsapp_direction" AS ENUM('inbound', 'outbound');--> statement-breakpoint
CREATE TYPE "public"."whatsapp_status" AS ENUM('sent', 'delivered', 'read', 'failed', 'received');--> statement-breakpoint
CREATE TYPE "public"."task_kind" AS ENUM('phonecall', 'email', 'linkedin', 'social', 'meeting');--> statement-breakpoint
CREATE TYPE "public"."meet_transcription_status" AS ENUM('recording', 'stopped', 'transcribed');--> statement-breakpoint
CREATE TYPE "public"."user_role" AS ENUM('admin', 'member');--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "api_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"token_hash" text NOT NULL,
	"prefix" varchar(16) NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_tokens_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "businesses" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "businesses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" varchar(255) NOT NULL,
	"linkedin_url" varchar(255),
	"sector" varchar(255),
	"colaborators_count" integer,
	"telephone" varchar(255),
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "businesses_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "companies" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "companies_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" varchar(255) NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_custom_values" (
	"company_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"custom_field_id" bigint NOT NULL,
	"value" varchar(255) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contact_custom_values_company_id_contact_id_custom_field_id_pk" PRIMARY KEY("company_id","contact_id","custom_field_id")
);
--> statement-breakpoint
CREATE TABLE "contact_events" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "contact_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contact_id" bigint NOT NULL,
	"kind" "contact_event_kind" NOT NULL,
	"user_id" bigint,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contact_events_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "contact_tags" (
	"company_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"tag_id" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contact_tags_company_id_contact_id_tag_id_pk" PRIMARY KEY("company_id","contact_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "contacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
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
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contacts_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "counters" (
	"company_id" bigint NOT NULL,
	"list" varchar(64) NOT NULL,
	"key" bigint DEFAULT 0 NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "counters_company_id_list_key_pk" PRIMARY KEY("company_id","list","key")
);
--> statement-breakpoint
CREATE TABLE "custom_fields" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "custom_fields_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"field" varchar(255) NOT NULL,
	"kind" "custom_field_kind" NOT NULL,
	"options" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "custom_fields_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "flow_enrollments" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "flow_enrollments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"flow_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"status" "flow_enrollment_status" DEFAULT 'active' NOT NULL,
	"added_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "flow_enrollments_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "flow_steps" (
	"company_id" bigint NOT NULL,
	"flow_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"day" integer NOT NULL,
	"kind" "task_kind" NOT NULL,
	"title" varchar(255) NOT NULL,
	CONSTRAINT "flow_steps_company_id_flow_id_position_pk" PRIMARY KEY("company_id","flow_id","position")
);
--> statement-breakpoint
CREATE TABLE "flows" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "flows_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"name" varchar(255) NOT NULL,
	"status" "flow_status" DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "flows_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "leads" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "leads_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"contact_id" bigint,
	"first_name" varchar(255) NOT NULL,
	"last_name" varchar(255),
	"email" varchar(255) NOT NULL,
	"provider" varchar(255) NOT NULL,
	"position" varchar(255),
	"linkedin_url" varchar(255),
	"telephone" varchar(255),
	"city" varchar(255),
	"state_province" varchar(255),
	"country" varchar(255),
	"degree_of_connection" integer,
	"business_name" varchar(255),
	"business_linkedin_url" varchar(255),
	"business_sector" varchar(255),
	"business_colaborators_count" integer,
	"business_telephone" varchar(255),
	"business_id" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leads_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "meet_transcriptions" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "meet_transcriptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"meet_id" varchar(255) NOT NULL,
	"status" "meet_transcription_status" DEFAULT 'recording' NOT NULL,
	"stopped_at" timestamp (3) with time zone,
	"transcript" text,
	"transcript_length" integer,
	"task_id" bigint,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meet_transcriptions_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "tags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" varchar(255) NOT NULL,
	"color" varchar(7) NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tags_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "tasks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" "task_kind" NOT NULL,
	"title" varchar(255) NOT NULL,
	"due_date" date NOT NULL,
	"done" boolean DEFAULT false NOT NULL,
	"done_at" timestamp (3) with time zone,
	"done_on" date,
	"assigned_to_id" bigint NOT NULL,
	"flow_id" bigint,
	"enrollment_id" bigint,
	"contact_id" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" varchar(255) NOT NULL,
	"email" varchar(255) NOT NULL,
	"role" "user_role" DEFAULT 'member' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
CREATE TABLE "whatsapp_chats" (
	"company_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"messages_count" integer NOT NULL,
	"last_message_id" bigint NOT NULL,
	"last_message_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "whatsapp_chats_company_id_contact_id_user_id_pk" PRIMARY KEY("company_id","contact_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "whatsapp_messages" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "whatsapp_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contact_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"direction" "whatsapp_direction" NOT NULL,
	"body" text NOT NULL,
	"status" "whatsapp_status" NOT NULL,
	"sent_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "whatsapp_messages_company_id_id_pk" PRIMARY KEY("company_id","id")
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "businesses" ADD CONSTRAINT "businesses_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_custom_values" ADD CONSTRAINT "contact_custom_values_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_custom_values" ADD CONSTRAINT "contact_custom_values_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_custom_values" ADD CONSTRAINT "contact_custom_values_field_fk" FOREIGN KEY ("company_id","custom_field_id") REFERENCES "public"."custom_fields"("company_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_events" ADD CONSTRAINT "contact_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_events" ADD CONSTRAINT "contact_events_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_events" ADD CONSTRAINT "contact_events_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_tags" ADD CONSTRAINT "contact_tags_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_tags" ADD CONSTRAINT "contact_tags_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_tags" ADD CONSTRAINT "contact_tags_tag_fk" FOREIGN KEY ("company_id","tag_id") REFERENCES "public"."tags"("company_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_business_fk" FOREIGN KEY ("company_id","business_id") REFERENCES "public"."businesses"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "counters" ADD CONSTRAINT "counters_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_fields" ADD CONSTRAINT "custom_fields_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flow_enrollments" ADD CONSTRAINT "flow_enrollments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flow_enrollments" ADD CONSTRAINT "flow_enrollments_flow_fk" FOREIGN KEY ("company_id","flow_id") REFERENCES "public"."flows"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flow_enrollments" ADD CONSTRAINT "flow_enrollments_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flow_steps" ADD CONSTRAINT "flow_steps_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flow_steps" ADD CONSTRAINT "flow_steps_flow_fk" FOREIGN KEY ("company_id","flow_id") REFERENCES "public"."flows"("company_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flows" ADD CONSTRAINT "flows_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "flows" ADD CONSTRAINT "flows_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_business_fk" FOREIGN KEY ("company_id","business_id") REFERENCES "public"."businesses"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meet_transcriptions" ADD CONSTRAINT "meet_transcriptions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meet_transcriptions" ADD CONSTRAINT "meet_transcriptions_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meet_transcriptions" ADD CONSTRAINT "meet_transcriptions_task_fk" FOREIGN KEY ("company_id","task_id") REFERENCES "public"."tasks"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_assigned_fk" FOREIGN KEY ("company_id","assigned_to_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_flow_fk" FOREIGN KEY ("company_id","flow_id") REFERENCES "public"."flows"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_enrollment_fk" FOREIGN KEY ("company_id","enrollment_id") REFERENCES "public"."flow_enrollments"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_chats" ADD CONSTRAINT "whatsapp_chats_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_chats" ADD CONSTRAINT "whatsapp_chats_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_chats" ADD CONSTRAINT "whatsapp_chats_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_chats" ADD CONSTRAINT "whatsapp_chats_last_message_fk" FOREIGN KEY ("company_id","last_message_id") REFERENCES "public"."whatsapp_messages"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_messages" ADD CONSTRAINT "whatsapp_messages_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_messages" ADD CONSTRAINT "whatsapp_messages_contact_fk" FOREIGN KEY ("company_id","contact_id") REFERENCES "public"."contacts"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapp_messages" ADD CONSTRAINT "whatsapp_messages_user_fk" FOREIGN KEY ("company_id","user_id") REFERENCES "public"."users"("company_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "api_tokens_company_user_idx" ON "api_tokens" USING btree ("company_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "businesses_company_name_key" ON "businesses" USING btree ("company_id",lower("name"));--> statement-breakpoint
CREATE INDEX "contact_custom_values_field_idx" ON "contact_custom_values" USING btree ("company_id","custom_field_id");--> statement-breakpoint
CREATE INDEX "contact_events_contact_idx" ON "contact_events" USING btree ("company_id","contact_id","id");--> statement-breakpoint
CREATE INDEX "contact_tags_tag_idx" ON "contact_tags" USING btree ("company_id","tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_company_email_live_key" ON "contacts" USING btree ("company_id",lower("email")) WHERE "contacts"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "contacts_company_live_idx" ON "contacts" USING btree ("company_id","id") WHERE "contacts"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "contacts_company_user_live_idx" ON "contacts" USING btree ("company_id","user_id","id") WHERE "contacts"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "contacts_company_business_idx" ON "contacts" USING btree ("company_id","business_id");--> statement-breakpoint
CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("company_id",("first_name" || ' ' || coalesce("last_name", '')) gin_trgm_ops,coalesce("business", '') gin_trgm_ops,"email" gin_trgm_ops) WHERE "contacts"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "custom_fields_company_field_key" ON "custom_fields" USING btree ("company_id",lower("field"));--> statement-breakpoint
CREATE UNIQUE INDEX "flow_enrollments_active_key" ON "flow_enrollments" USING btree ("company_id","flow_id","contact_id") WHERE "flow_enrollments"."status" = 'active';--> statement-breakpoint
CREATE INDEX "flow_enrollments_contact_idx" ON "flow_enrollments" USING btree ("company_id","contact_id");--> statement-breakpoint
CREATE INDEX "flows_company_user_idx" ON "flows" USING btree ("company_id","user_id","id");--> statement-breakpoint
CREATE INDEX "flows_name_trgm_idx" ON "flows" USING gin ("company_id","name" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "leads_company_provider_email_key" ON "leads" USING btree ("company_id","provider",lower("email"));--> statement-breakpoint
CREATE INDEX "leads_company_email_idx" ON "leads" USING btree ("company_id",lower("email"));--> statement-breakpoint
CREATE INDEX "leads_company_user_idx" ON "leads" USING btree ("company_id","user_id","id");--> statement-breakpoint
CREATE INDEX "leads_company_user_linked_idx" ON "leads" USING btree ("company_id","user_id",("contact_id" is not null),"id");--> statement-breakpoint
CREATE INDEX "leads_company_contact_idx" ON "leads" USING btree ("company_id","contact_id");--> statement-breakpoint
CREATE INDEX "meet_transcriptions_user_idx" ON "meet_transcriptions" USING btree ("company_id","user_id",("task_id" is not null),"id");--> statement-breakpoint
CREATE INDEX "meet_transcriptions_company_user_idx" ON "meet_transcriptions" USING btree ("company_id","user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_company_name_key" ON "tags" USING btree ("company_id",lower("name"));--> statement-breakpoint
CREATE INDEX "tasks_due_idx" ON "tasks" USING btree ("company_id","done","due_date","id","kind");--> statement-breakpoint
CREATE INDEX "tasks_assigned_idx" ON "tasks" USING btree ("company_id","assigned_to_id","done","due_date","id","kind","flow_id");--> statement-breakpoint
CREATE INDEX "tasks_flow_idx" ON "tasks" USING btree ("company_id","flow_id","done","due_date","id","kind","assigned_to_id");--> statement-breakpoint
CREATE INDEX "tasks_contact_idx" ON "tasks" USING btree ("company_id","contact_id","due_date","id");--> statement-breakpoint
CREATE INDEX "tasks_done_on_idx" ON "tasks" USING btree ("company_id","done_on","due_date","id","assigned_to_id","flow_id","kind") WHERE "tasks"."done";--> statement-breakpoint
CREATE UNIQUE INDEX "users_company_email_key" ON "users" USING btree ("company_id",lower("email"));--> statement-breakpoint
CREATE INDEX "whatsapp_chats_contact_recent_idx" ON "whatsapp_chats" USING btree ("company_id","contact_id","last_message_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "whatsapp_messages_contact_idx" ON "whatsapp_messages" USING btree ("company_id","contact_id","sent_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "whatsapp_messages_contact_user_idx" ON "whatsapp_messages" USING btree ("company_id","contact_id","user_id","sent_at" DESC NULLS LAST,"id" DESC NULLS LAST);