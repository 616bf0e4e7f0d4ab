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

-- The kept JSON of the contacts `contact_ids` of a company built again (their tags, their
-- custom fields, or both): each contact once, in id order (the order writers lock contacts
-- in), by its primary key (as `id = ANY(…)`, a table never analysed read the company's rows
-- filtering the ids). VOLATILE builders read with a snapshot of their own: an update that
-- waited for another writer's lock on a contact reads what that writer committed.
CREATE FUNCTION contacts_keep_children(company bigint, contact_ids bigint[], tags boolean, fields boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  contact bigint;
BEGIN
  FOR contact IN SELECT DISTINCT unnest(contact_ids) ORDER BY 1 LOOP
    UPDATE contacts
       SET tags_json = CASE WHEN tags THEN contact_tags_json(company, contact) ELSE tags_json END,
           custom_fields_json = CASE WHEN fields THEN contact_custom_values_json(company, contact) ELSE custom_fields_json END
     WHERE company_id = company AND id = contact;
  END LOOP;
END
$$;--> statement-breakpoint

-- After each statement that changed contact_tags or contact_custom_values: the contacts it
-- touched (a transition table serves one event only: a trigger per table and event).
CREATE FUNCTION contacts_children_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM contacts_keep_children(company_id, array_agg(contact_id), TG_TABLE_NAME = 'contact_tags', TG_TABLE_NAME = 'contact_custom_values')
     FROM changed GROUP BY company_id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER contact_tags_inserted AFTER INSERT ON contact_tags
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_children_changed();--> statement-breakpoint
CREATE TRIGGER contact_tags_deleted AFTER DELETE ON contact_tags
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_children_changed();--> statement-breakpoint
CREATE TRIGGER contact_tags_updated AFTER UPDATE ON contact_tags
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_children_changed();--> statement-breakpoint
CREATE TRIGGER contact_custom_values_inserted AFTER INSERT ON contact_custom_values
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_children_changed();--> statement-breakpoint
CREATE TRIGGER contact_custom_values_deleted AFTER DELETE ON contact_custom_values
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_children_changed();--> statement-breakpoint
CREATE TRIGGER contact_custom_values_updated AFTER UPDATE ON contact_custom_values
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION contacts_children_changed();--> statement-breakpoint

-- A tag renamed or recoloured, a field renamed (rare writes, one row at a time): the contacts
-- that carry it, through contact_tags_tag_idx / contact_custom_values_field_idx.
CREATE FUNCTION contacts_catalogue_shown() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM contacts_keep_children(NEW.company_id, CASE TG_TABLE_NAME
    WHEN 'tags' THEN array(SELECT contact_id FROM contact_tags WHERE tag_id = NEW.id AND company_id = NEW.company_id)
    ELSE array(SELECT contact_id FROM contact_custom_values WHERE custom_field_id = NEW.id AND company_id = NEW.company_id)
  END, TG_TABLE_NAME = 'tags', TG_TABLE_NAME = 'custom_fields');
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER tags_shown_changed AFTER UPDATE OF name, color ON tags
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.color IS DISTINCT FROM NEW.color)
  EXECUTE FUNCTION contacts_catalogue_shown();--> statement-breakpoint
CREATE TRIGGER custom_fields_shown_changed AFTER UPDATE OF field ON custom_fields
  FOR EACH ROW WHEN (OLD.field IS DISTINCT FROM NEW.field)
  EXECUTE FUNCTION contacts_catalogue_shown();--> statement-breakpoint

-- The contacts there are: each one with tags or values, once.
SELECT contacts_keep_children(company_id, array_agg(contact_id), true, true)
  FROM (SELECT company_id, contact_id FROM contact_tags UNION SELECT company_id, contact_id FROM contact_custom_values) children
 GROUP BY company_id;
