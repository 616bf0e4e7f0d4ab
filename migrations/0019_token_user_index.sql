-- A user's api tokens lead with the user (docs/performance.md, "Plans without statistics"):
-- as (company_id, user_id), a table never analysed tied it with the primary key
-- (company_id, id), and a lookup of one token by id took it, filtering the company's tokens
-- on the id. Every lookup through it gives both columns.
DROP INDEX "api_tokens_company_user_idx";--> statement-breakpoint
CREATE INDEX "api_tokens_company_user_idx" ON "api_tokens" USING btree ("user_id","company_id");
