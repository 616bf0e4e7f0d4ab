-- Task counters for pairs of filters (src/modules/tasks/task-counters.ts): the due-day lists
-- of each kind (tasks.due.k<kind>, tasks.open_due.k<kind>), and each assignee's tasks by
-- kind (tasks.kind.u<user>, tasks.kind.done.u<user>) and by flow (tasks.flow.u<user>,
-- tasks.flow.done.u<user>), counted here from the tasks already there. A kind's number is
-- its position in TASK_KINDS, from 0; a day is its epoch day. Writers of tasks adjust these
-- rows from this version on: upgrade with the writers stopped.
INSERT INTO "counters" ("company_id", "list", "key", "value")
SELECT "company_id", "list", "key", count(*)
  FROM (
    SELECT "company_id", 'tasks.due.k' || (array_position(ARRAY['phonecall','email','linkedin','social','meeting'], "kind"::text) - 1) AS "list",
           ("due_date" - date '1970-01-01')::bigint AS "key"
      FROM "tasks"
    UNION ALL
    SELECT "company_id", 'tasks.open_due.k' || (array_position(ARRAY['phonecall','email','linkedin','social','meeting'], "kind"::text) - 1),
           ("due_date" - date '1970-01-01')::bigint
      FROM "tasks" WHERE NOT "done"
    UNION ALL
    SELECT "company_id", 'tasks.kind.u' || "assigned_to_id",
           (array_position(ARRAY['phonecall','email','linkedin','social','meeting'], "kind"::text) - 1)::bigint
      FROM "tasks"
    UNION ALL
    SELECT "company_id", 'tasks.kind.done.u' || "assigned_to_id",
           (array_position(ARRAY['phonecall','email','linkedin','social','meeting'], "kind"::text) - 1)::bigint
      FROM "tasks" WHERE "done"
    UNION ALL
    SELECT "company_id", 'tasks.flow.u' || "assigned_to_id", "flow_id"
      FROM "tasks" WHERE "flow_id" IS NOT NULL
    UNION ALL
    SELECT "company_id", 'tasks.flow.done.u' || "assigned_to_id", "flow_id"
      FROM "tasks" WHERE "flow_id" IS NOT NULL AND "done"
  ) AS "t"
 GROUP BY "company_id", "list", "key"
ON CONFLICT ("company_id", "list", "key") DO UPDATE SET "value" = excluded."value";
