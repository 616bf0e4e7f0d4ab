-- Contact search (issue 9): what search_term searches (full name, business, email), each
-- lower()-ed and joined by U+001F, in one stored generated column with one trigram index
-- (user_id in it too, for an owner's search). A plain substring test of the column is cheap
-- in a pass over the rows, and the one GIN index replaces the three trigram expressions of 0001. Adding a stored generated column
-- rewrites the table once, under an exclusive lock (about 25 s for 1 M contacts).
ALTER TABLE "contacts" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower("first_name" || ' ' || coalesce("last_name", '')) || E'\x1f' || lower(coalesce("business", '')) || E'\x1f' || lower("email")) STORED;--> statement-breakpoint
DROP INDEX "contacts_search_trgm_idx";--> statement-breakpoint
CREATE INDEX "contacts_search_trgm_idx" ON "contacts" USING gin ("company_id","user_id","search_text" gin_trgm_ops) WHERE "contacts"."deleted_at" is null;
