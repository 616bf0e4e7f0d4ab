-- A contact keeps its tags and custom fields beside its row, as the JSON its record shows
-- (docs/performance.md, "Plans without statistics"): a read takes them as two columns instead of
-- aggregating contact_tags and contact_custom_values for each contact. The triggers below
-- keep them, in the transaction of every write that changes what they show: a contact's tag
-- or value added, changed or removed (cascades included), a tag renamed or recoloured, a
-- field renamed. contact_tags_json and contact_custom_values_json build them, in the shape
-- of the Contact record's tags and custom_fields (test/contacts/contact-children.test.ts
-- holds the two to the repository's TAGS_JSON and FIELDS_JSON).
ALTER TABLE "contacts" ADD COLUMN "tags_json" json DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "custom_fields_json" json DEFAULT '[]' NOT NULL;--> statement-breakpoint

-- Each tag and field by its primary key in a lateral lookup, as the repository reads them:
-- a plan that holds on a database never analysed.
CREATE FUNCTION contact_tags_json(company bigint, contact bigint) RETURNS json LANGUAGE sql VOLATILE AS $$
  select coalesce(array_to_json(array_agg((select j from (select t.id, t.name, t.color) j) order by t.id)), '[]')
    from contact_tags ct
    cross join lateral (select t.id, t.name, t.color from tags t
                         where t.company_id = ct.company_id and t.id = ct.tag_id limit 1) t
   where ct.company_id = company and ct.contact_id = contact
$$;--> statement-breakpoint
CREATE FUNCTION contact_custom_values_json(company bigint, contact bigint) RETURNS json LANGUAGE sql VOLATILE AS $$
  select coalesce(array_to_json(array_agg((select j from (select f.field, v.value) j) order by f.id)), '[]')
    from contact_custom_values v
    cross join lateral (select f.id, f.field from custom_fields f
                         where f.company_id = v.company_id and f.id = v.custom_field_id limit 1) f
   where v.company_id = company and v.contact_id = contact
$$;--> statement-breakpoint

-- After each statement that changed contact_tags: each contact it touched, once, in id order
-- (the order every writer locks contacts in), by primary key. VOLATILE builders read with a
-- snapshot of their own: an update that waited for another writer's lock on the contact
-- reads the tags that writer committed.
CREATE FUNCTION contacts_refresh_tags() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT company_id, contact_id FROM changed ORDER BY company_id, contact_id LOOP
    UPDATE contacts SET tags_json = contact_tags_json(r.company_id, r.contact_id)
     WHERE company_id = r.company_id AND id = r.contact_id;
  END LOOP;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION contacts_refresh_custom_values() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT company_id, contact_id FROM changed ORDER BY company_id, contact_id LOOP
    UPDATE contacts SET custom_fields_json = contact_custom_values_json(r.company_id, r.contact_id)
     WHERE company_id = r.company_id AND id = r.contact_id;
  END LOOP;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- A transition table serves one event only: a trigger per event.
CREATE TRIGGER contact_tags_inserted AFTER INSERT ON contact_tags
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_refresh_tags();--> statement-breakpoint
CREATE TRIGGER contact_tags_deleted AFTER DELETE ON contact_tags
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_refresh_tags();--> statement-breakpoint
CREATE TRIGGER contact_tags_updated AFTER UPDATE ON contact_tags
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_refresh_tags();--> statement-breakpoint
CREATE TRIGGER contact_custom_values_inserted AFTER INSERT ON contact_custom_values
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_refresh_custom_values();--> statement-breakpoint
CREATE TRIGGER contact_custom_values_deleted AFTER DELETE ON contact_custom_values
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_refresh_custom_values();--> statement-breakpoint
CREATE TRIGGER contact_custom_values_updated AFTER UPDATE ON contact_custom_values
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_refresh_custom_values();--> statement-breakpoint

-- A tag renamed or recoloured, a field renamed: the contacts that carry it, in id order,
-- through contact_tags_tag_idx / contact_custom_values_field_idx (rare writes; one at a time).
CREATE FUNCTION contacts_refresh_tag() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT contact_id FROM contact_tags WHERE tag_id = NEW.id AND company_id = NEW.company_id ORDER BY contact_id LOOP
    UPDATE contacts SET tags_json = contact_tags_json(NEW.company_id, r.contact_id)
     WHERE company_id = NEW.company_id AND id = r.contact_id;
  END LOOP;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION contacts_refresh_field() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT contact_id FROM contact_custom_values WHERE custom_field_id = NEW.id AND company_id = NEW.company_id ORDER BY contact_id LOOP
    UPDATE contacts SET custom_fields_json = contact_custom_values_json(NEW.company_id, r.contact_id)
     WHERE company_id = NEW.company_id AND id = r.contact_id;
  END LOOP;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER tags_shown_changed AFTER UPDATE OF name, color ON tags
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.color IS DISTINCT FROM NEW.color)
  EXECUTE FUNCTION contacts_refresh_tag();--> statement-breakpoint
CREATE TRIGGER custom_fields_shown_changed AFTER UPDATE OF field ON custom_fields
  FOR EACH ROW WHEN (OLD.field IS DISTINCT FROM NEW.field)
  EXECUTE FUNCTION contacts_refresh_field();--> statement-breakpoint

-- The contacts there are: each one with tags or values, once.
UPDATE contacts c
   SET tags_json = contact_tags_json(c.company_id, c.id),
       custom_fields_json = contact_custom_values_json(c.company_id, c.id)
 WHERE exists (select from contact_tags ct where ct.company_id = c.company_id and ct.contact_id = c.id)
    OR exists (select from contact_custom_values v where v.company_id = c.company_id and v.contact_id = c.id);
