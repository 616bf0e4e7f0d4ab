-- updated_since walks (issue 13): one index per synced table on (company_id, updated_at, id),
-- the walk's order; contacts include the deleted ones, which a walk shows as tombstones.
CREATE INDEX "contacts_company_updated_idx" ON "contacts" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "tasks_company_updated_idx" ON "tasks" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "leads_company_updated_idx" ON "leads" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "meet_transcriptions_company_updated_idx" ON "meet_transcriptions" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "whatsapp_messages_company_updated_idx" ON "whatsapp_messages" USING btree ("company_id","updated_at","id");
