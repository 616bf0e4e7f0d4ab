-- Plans that hold without statistics (issue 26 item 7, docs/performance.md, "Plans without
-- statistics"). On a table never analysed, every condition on company_id alone is estimated
-- at a row or so, and an index that leads with company_id but not with the lookup's key ties
-- with the primary key; the planner then took the smaller one and filtered on the key (a
-- contact's custom values through contact_custom_values_field_idx, filtering on the contact:
-- every value of the company read per contact). These secondary indexes serve lookups that
-- always give both columns, so they now lead with their own key, and no lookup by the primary
-- key can take them as its condition. Each still includes company_id (test/db/distribution.test.ts), and
-- ON CONFLICT (company_id, lower(name)) infers a unique index whatever its column order.
DROP INDEX "contact_custom_values_field_idx";--> statement-breakpoint
CREATE INDEX "contact_custom_values_field_idx" ON "contact_custom_values" USING btree ("custom_field_id","company_id");--> statement-breakpoint
DROP INDEX "contact_tags_tag_idx";--> statement-breakpoint
CREATE INDEX "contact_tags_tag_idx" ON "contact_tags" USING btree ("tag_id","company_id");--> statement-breakpoint
DROP INDEX "tags_company_name_key";--> statement-breakpoint
CREATE UNIQUE INDEX "tags_company_name_key" ON "tags" USING btree (lower("name"),"company_id");--> statement-breakpoint
DROP INDEX "custom_fields_company_field_key";--> statement-breakpoint
CREATE UNIQUE INDEX "custom_fields_company_field_key" ON "custom_fields" USING btree (lower("field"),"company_id");--> statement-breakpoint
-- A business's contacts: only contacts with a business, so that a lookup of a contact by id
-- (which does not say business_id is not null) cannot take it for a walk of the company.
DROP INDEX "contacts_company_business_idx";--> statement-breakpoint
CREATE INDEX "contacts_company_business_idx" ON "contacts" USING btree ("company_id","business_id") WHERE "business_id" IS NOT NULL;
