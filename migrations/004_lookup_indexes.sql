-- pending_actions rows outlive their runs, so lookups by run must not depend on the
-- partial "pending only" indexes: resuming reads decided rows, and deciding by run id
-- matches either the top-level or the owning run.
CREATE INDEX pending_actions_run_call ON pending_actions (run_id, tool_call_id, id);
