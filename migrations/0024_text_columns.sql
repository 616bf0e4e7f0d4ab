-- Contacts' optional text columns and businesses' text columns become `text` with a CHECK on
-- their length: the same rule as varchar(n), in characters. Why: a table without statistics
-- (a fresh install, whose migrations ANALYZEd it empty; a database without autovacuum) is
-- sized by the planner from its pages and the width its column types suggest, and
-- PostgreSQL guesses 516 bytes for a varchar(255) in UTF-8 (32 for text). Sixteen of them
-- made a contact 8,421 bytes wide, more than a page: every plan took contacts for empty
-- whatever their number (now 2,613 bytes, and the estimate grows with the table). Businesses,
-- 2,100 bytes wide, were taken for 30 rows at most: the foreign-key check of every contact a
-- batch writes (contacts_business_fk) walked the company's businesses through
-- businesses_company_name_key instead of probing the primary key (docs/performance.md,
-- "Contact import and export"). Contacts' first_name, last_name, email and business stay
-- varchar(255): search_text is generated from them, and PostgreSQL does not change the type
-- of a column a generated column reads.
-- varchar to text is binary-compatible: no table is rewritten, and no index rebuilt but
-- businesses_company_name_key (it reads lower(name)). Each table's checks are added in the
-- statement that changes its types, so that one pass over its rows validates them all (the
-- migrations run in one transaction, under this statement's lock: NOT VALID then VALIDATE
-- would lock as long and read the rows once per check). The API refuses longer values before
-- they reach a table (TypeBox, maxLength), with the same messages as before.
ALTER TABLE "contacts"
  ALTER COLUMN "position" TYPE text,
  ALTER COLUMN "telephone" TYPE text,
  ALTER COLUMN "cellphone" TYPE text,
  ALTER COLUMN "address" TYPE text,
  ALTER COLUMN "city" TYPE text,
  ALTER COLUMN "state" TYPE text,
  ALTER COLUMN "country" TYPE text,
  ALTER COLUMN "url" TYPE text,
  ALTER COLUMN "linkedin" TYPE text,
  ALTER COLUMN "variable1" TYPE text,
  ALTER COLUMN "variable2" TYPE text,
  ALTER COLUMN "variable3" TYPE text,
  ADD CONSTRAINT "contacts_position_length" CHECK (char_length("position") <= 255),
  ADD CONSTRAINT "contacts_telephone_length" CHECK (char_length("telephone") <= 255),
  ADD CONSTRAINT "contacts_cellphone_length" CHECK (char_length("cellphone") <= 255),
  ADD CONSTRAINT "contacts_address_length" CHECK (char_length("address") <= 1000),
  ADD CONSTRAINT "contacts_city_length" CHECK (char_length("city") <= 255),
  ADD CONSTRAINT "contacts_state_length" CHECK (char_length("state") <= 255),
  ADD CONSTRAINT "contacts_country_length" CHECK (char_length("country") <= 255),
  ADD CONSTRAINT "contacts_url_length" CHECK (char_length("url") <= 255),
  ADD CONSTRAINT "contacts_linkedin_length" CHECK (char_length("linkedin") <= 255),
  ADD CONSTRAINT "contacts_variable1_length" CHECK (char_length("variable1") <= 255),
  ADD CONSTRAINT "contacts_variable2_length" CHECK (char_length("variable2") <= 255),
  ADD CONSTRAINT "contacts_variable3_length" CHECK (char_length("variable3") <= 255);
--> statement-breakpoint
ALTER TABLE "businesses"
  ALTER COLUMN "name" TYPE text,
  ALTER COLUMN "linkedin_url" TYPE text,
  ALTER COLUMN "sector" TYPE text,
  ALTER COLUMN "telephone" TYPE text,
  ADD CONSTRAINT "businesses_name_length" CHECK (char_length("name") <= 255),
  ADD CONSTRAINT "businesses_linkedin_url_length" CHECK (char_length("linkedin_url") <= 255),
  ADD CONSTRAINT "businesses_sector_length" CHECK (char_length("sector") <= 255),
  ADD CONSTRAINT "businesses_telephone_length" CHECK (char_length("telephone") <= 255);
