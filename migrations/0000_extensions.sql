-- Trigram search (ILIKE '%term%' through GIN) and btree_gin (company_id inside the same GIN index).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;
