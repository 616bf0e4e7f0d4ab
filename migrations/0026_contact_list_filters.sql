-- The contacts list by stage and by tag, and exact totals of 1–2 character searches without a
-- pass over the contacts (docs/performance.md, "The workspace's contacts list at a million
-- contacts"; docs/contacts.md, the list's `stage` and `tag_id`).
--
-- Each live contact by stage, in id order: a stage's page is a range of this index.
CREATE INDEX "contacts_company_stage_live_idx" ON "contacts" USING btree ("company_id", "stage", "id") WHERE "deleted_at" IS NULL;--> statement-breakpoint
-- The live contacts' owner and stage beside their ids: a tag's contacts of one owner or at one
-- stage are counted by probing this index alone (a heap probe per tagged contact took 70–300 ms
-- for a tag of 44,000 contacts at a million).
DROP INDEX "contacts_company_live_idx";--> statement-breakpoint
CREATE INDEX "contacts_company_live_idx" ON "contacts" USING btree ("company_id", "id") INCLUDE ("user_id", "stage") WHERE "deleted_at" IS NULL;--> statement-breakpoint
-- A tag's contacts in contact id order (it kept tag and company first: 0018_plans.sql).
DROP INDEX "contact_tags_tag_idx";--> statement-breakpoint
CREATE INDEX "contact_tags_tag_idx" ON "contact_tags" USING btree ("tag_id", "company_id", "contact_id");--> statement-breakpoint

-- A search's grams: each character of a contact's search_text (`head` 0) and each two
-- neighbouring characters (`head` the code point of the first), by their last character
-- (`tail`); none with U+001F, the separator of the three fields. Repeats are left in.
CREATE FUNCTION "contact_search_grams"("search_text" text, OUT "tail" text, OUT "head" bigint) RETURNS SETOF record
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT x, 0::bigint FROM unnest(string_to_array(search_text, NULL)) x WHERE x <> E'\x1f'
  UNION ALL
  SELECT p.y, ascii(p.x)::bigint
    FROM (SELECT string_to_array(search_text, NULL) AS a) s,
         unnest(s.a[:cardinality(s.a) - 1], s.a[2:]) AS p(x, y)
   WHERE p.x <> E'\x1f' AND p.y <> E'\x1f'
$$;--> statement-breakpoint

-- The changes of live contacts' search texts not yet added to the counters of their grams
-- (`contacts.gram:<tail>`, key `head`; of one owner `contacts.user_gram:<tail>`, key the
-- owner's id × 1,114,112 + `head`; at one stage `contacts.stage_gram:<tail>`, key the stage's
-- position × 1,114,112 + `head`; 1,114,112 code points): a new contact's text (`added`, with
-- its owner and stage), a changed one's old and new (also when only its owner or stage
-- changed), a deleted one's old (`removed`). The workers fold them into the counters a few
-- thousand at a time (contacts.foldSearchChanges); a search adds those still here to the
-- counters' total, in the same snapshot, so the total is exact whatever the workers' delay.
-- A contact write pays one row here instead of an upsert for each of its 60-odd grams.
CREATE TABLE "contact_search_changes" (
	"company_id" bigint NOT NULL,
	"id" bigint GENERATED ALWAYS AS IDENTITY (INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1) NOT NULL,
	"added" text,
	"added_user_id" bigint,
	"added_stage" smallint,
	"removed" text,
	"removed_user_id" bigint,
	"removed_stage" smallint,
	CONSTRAINT "contact_search_changes_company_id_id_pk" PRIMARY KEY("company_id","id")
);--> statement-breakpoint
ALTER TABLE "contact_search_changes" ADD CONSTRAINT "contact_search_changes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint

-- After each statement that inserts or updates contacts: the search changes, and the
-- counters of live contacts by stage (`contacts_by_stage`, key the stage's position from 0),
-- by owner and stage (`contacts_by_user_stage`, key the owner's id × 8 + the stage's position)
-- and by tag (`contacts_by_tag`, key the tag id) for the contacts that became live or not.
-- Counters go to the writer's slot (src/db/counters.ts: COUNTER_SLOTS is 16), locked in
-- (company, list, key) order after the statement's own counters (docs/reliability.md).
-- Contacts are never deleted but with their company, whose rows cascade. The updates that
-- other triggers make (a contact's tags and custom fields kept as JSON, 0020: one statement
-- per contact) change nothing counted here, and are skipped at once: checking them cost a
-- batch of 100 new tagged contacts 30 ms.
CREATE FUNCTION "contacts_listed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() > 1 THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO contact_search_changes (company_id, added, added_user_id, added_stage)
    SELECT company_id, search_text, user_id, array_position(enum_range(NULL::contact_stage), stage) - 1
      FROM new_rows WHERE deleted_at IS NULL ORDER BY id;
    INSERT INTO counters (company_id, list, key, slot, value)
    SELECT d.company_id, d.list, d.key, (pg_backend_pid() % 16)::smallint, count(*)
      FROM new_rows n
     CROSS JOIN LATERAL (VALUES (n.company_id, 'contacts_by_stage', array_position(enum_range(NULL::contact_stage), n.stage) - 1),
                                (n.company_id, 'contacts_by_user_stage', n.user_id * 8 + array_position(enum_range(NULL::contact_stage), n.stage) - 1)) d(company_id, list, key)
     WHERE n.deleted_at IS NULL AND n.stage IS NOT NULL
     GROUP BY d.company_id, d.list, d.key
     ORDER BY d.company_id, d.list, d.key
        ON CONFLICT (company_id, list, key, slot) DO UPDATE SET value = counters.value + excluded.value;
    RETURN NULL;
  END IF;
  WITH changed AS (
    SELECT n.company_id, n.id,
           CASE WHEN o.deleted_at IS NULL THEN o.search_text END AS removed,
           CASE WHEN n.deleted_at IS NULL THEN n.search_text END AS added,
           CASE WHEN o.deleted_at IS NULL THEN array_position(enum_range(NULL::contact_stage), o.stage) - 1 END AS stage_was,
           CASE WHEN n.deleted_at IS NULL THEN array_position(enum_range(NULL::contact_stage), n.stage) - 1 END AS stage_now,
           o.user_id AS user_was, n.user_id AS user_now,
           (o.deleted_at IS NULL) AS was_live, (n.deleted_at IS NULL) AS is_live
      FROM old_rows o JOIN new_rows n ON n.company_id = o.company_id AND n.id = o.id
     WHERE o.search_text IS DISTINCT FROM n.search_text OR o.stage IS DISTINCT FROM n.stage OR o.user_id <> n.user_id
        OR (o.deleted_at IS NULL) <> (n.deleted_at IS NULL)
  ), texts AS (
    INSERT INTO contact_search_changes (company_id, added, added_user_id, added_stage, removed, removed_user_id, removed_stage)
    SELECT company_id, added, user_now, stage_now, removed, user_was, stage_was
      FROM changed
     WHERE (added IS NOT NULL OR removed IS NOT NULL)
       AND (added, user_now, stage_now) IS DISTINCT FROM (removed, user_was, stage_was)
     ORDER BY id
  )
  INSERT INTO counters (company_id, list, key, slot, value)
  SELECT d.company_id, d.list, d.key, (pg_backend_pid() % 16)::smallint, sum(d.delta)
    FROM (SELECT company_id, 'contacts_by_stage' AS list, stage_was AS key, -1 AS delta FROM changed WHERE stage_was IS NOT NULL
          UNION ALL
          SELECT company_id, 'contacts_by_stage', stage_now, 1 FROM changed WHERE stage_now IS NOT NULL
          UNION ALL
          SELECT company_id, 'contacts_by_user_stage', user_was * 8 + stage_was, -1 FROM changed WHERE stage_was IS NOT NULL
          UNION ALL
          SELECT company_id, 'contacts_by_user_stage', user_now * 8 + stage_now, 1 FROM changed WHERE stage_now IS NOT NULL
          UNION ALL
          SELECT c.company_id, 'contacts_by_tag', ct.tag_id, CASE WHEN c.is_live THEN 1 ELSE -1 END
            FROM changed c JOIN contact_tags ct ON ct.company_id = c.company_id AND ct.contact_id = c.id
           WHERE c.was_live <> c.is_live) d
   GROUP BY d.company_id, d.list, d.key
  HAVING sum(d.delta) <> 0
   ORDER BY d.company_id, d.list, d.key
      ON CONFLICT (company_id, list, key, slot) DO UPDATE SET value = counters.value + excluded.value;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "contacts_listed_inserted" AFTER INSERT ON "contacts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contacts_listed();--> statement-breakpoint
CREATE TRIGGER "contacts_listed_updated" AFTER UPDATE ON "contacts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contacts_listed();--> statement-breakpoint

-- After each statement that adds or removes contacts' tags (a tag's deletion cascades here):
-- `contacts_by_tag` of the live contacts among them, each contact probed by its primary key
-- (a LIMIT 1 lookup, which no estimate turns into a join). Not while their company is being
-- deleted (its counters go with it).
CREATE FUNCTION "contact_tags_listed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO counters (company_id, list, key, slot, value)
  SELECT ct.company_id, 'contacts_by_tag', ct.tag_id, (pg_backend_pid() % 16)::smallint,
         CASE WHEN TG_OP = 'INSERT' THEN count(*) ELSE -count(*) END
    FROM changed ct
   CROSS JOIN LATERAL (SELECT FROM contacts c
                        WHERE c.company_id = ct.company_id AND c.id = ct.contact_id AND c.deleted_at IS NULL LIMIT 1) live
   WHERE EXISTS (SELECT FROM companies WHERE id = ct.company_id)
   GROUP BY ct.company_id, ct.tag_id
   ORDER BY ct.company_id, ct.tag_id
      ON CONFLICT (company_id, list, key, slot) DO UPDATE SET value = counters.value + excluded.value;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "contact_tags_listed_inserted" AFTER INSERT ON "contact_tags"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contact_tags_listed();--> statement-breakpoint
CREATE TRIGGER "contact_tags_listed_deleted" AFTER DELETE ON "contact_tags"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contact_tags_listed();--> statement-breakpoint

-- The counters of the contacts there are (several minutes at a million contacts, most of it
-- the grams: the company's, each owner's and each stage's). Upgrade with the writers stopped.
INSERT INTO "counters" ("company_id", "list", "key", "value")
SELECT "company_id", 'contacts_by_stage', array_position(enum_range(NULL::contact_stage), "stage") - 1, count(*)
  FROM "contacts" WHERE "deleted_at" IS NULL AND "stage" IS NOT NULL
 GROUP BY 1, 3
UNION ALL
SELECT "company_id", 'contacts_by_user_stage', "user_id" * 8 + array_position(enum_range(NULL::contact_stage), "stage") - 1, count(*)
  FROM "contacts" WHERE "deleted_at" IS NULL AND "stage" IS NOT NULL
 GROUP BY 1, 3
UNION ALL
SELECT ct."company_id", 'contacts_by_tag', ct."tag_id", count(*)
  FROM "contact_tags" ct
 CROSS JOIN LATERAL (SELECT FROM "contacts" c
                      WHERE c."company_id" = ct."company_id" AND c."id" = ct."contact_id" AND c."deleted_at" IS NULL LIMIT 1) live
 GROUP BY 1, 3
UNION ALL
SELECT "company_id", 'contacts.gram:' || "tail", "head", count(*)
  FROM (SELECT DISTINCT c."company_id", c."id", g."tail", g."head"
          FROM "contacts" c, contact_search_grams(c."search_text") g
         WHERE c."deleted_at" IS NULL) grams
 GROUP BY 1, 2, 3
UNION ALL
SELECT "company_id", 'contacts.user_gram:' || "tail", "user_id" * 1114112 + "head", count(*)
  FROM (SELECT DISTINCT c."company_id", c."id", c."user_id", g."tail", g."head"
          FROM "contacts" c, contact_search_grams(c."search_text") g
         WHERE c."deleted_at" IS NULL) grams
 GROUP BY 1, 2, 3
UNION ALL
SELECT "company_id", 'contacts.stage_gram:' || "tail", "stage" * 1114112 + "head", count(*)
  FROM (SELECT DISTINCT c."company_id", c."id", array_position(enum_range(NULL::contact_stage), c."stage") - 1 AS "stage", g."tail", g."head"
          FROM "contacts" c, contact_search_grams(c."search_text") g
         WHERE c."deleted_at" IS NULL AND c."stage" IS NOT NULL) grams
 GROUP BY 1, 2, 3;
