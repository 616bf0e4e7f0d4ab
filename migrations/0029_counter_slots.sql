-- The slot a spread counter write adds to (src/db/counters.ts, WRITER_SLOT): the one the
-- service gave the transaction's connection (SET LOCAL engage.counter_slot, distinct among
-- the pool's connections), else the backend's process id modulo 16 as before. Two writers
-- of one company in the same slot wait for each other's COMMIT, and process ids only fall
-- into distinct slots when the pool opened its connections one after the other
-- (docs/performance.md, "Counter slots given by the pool"). The triggers that add to
-- counters take the same slot, so that a transaction keeps to one.
CREATE FUNCTION "counter_slot"() RETURNS smallint LANGUAGE sql STABLE PARALLEL RESTRICTED AS $$
  SELECT coalesce(nullif(current_setting('engage.counter_slot', true), '')::smallint, (pg_backend_pid() % 16)::smallint)
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "contacts_listed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() > 1 OR NOT EXISTS (SELECT FROM new_rows) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO contact_search_changes (company_id, added, added_user_id, added_stage)
    SELECT company_id, search_text, user_id, array_position(enum_range(NULL::contact_stage), stage) - 1
      FROM new_rows WHERE deleted_at IS NULL ORDER BY id;
    INSERT INTO counters (company_id, list, key, slot, value)
    SELECT d.company_id, d.list, d.key, counter_slot(), count(*)
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
  SELECT d.company_id, d.list, d.key, counter_slot(), sum(d.delta)
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
CREATE OR REPLACE FUNCTION "contact_tags_listed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT FROM changed) THEN
    RETURN NULL;
  END IF;
  INSERT INTO counters (company_id, list, key, slot, value)
  SELECT ct.company_id, 'contacts_by_tag', ct.tag_id, counter_slot(),
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
$$;
