-- A contact's meeting transcriptions (the workspace's contact page: those linked to one of the
-- contact's tasks) are read task by task: without this index each task's transcriptions were
-- a scan of the company's. It leads with the task, not the company, so that on a table never
-- analysed it does not tie with the primary key for a lookup by id (docs/performance.md,
-- "Plans without statistics"). It also serves the task foreign key's check.
CREATE INDEX "meet_transcriptions_task_idx" ON "meet_transcriptions" USING btree ("task_id","company_id");
