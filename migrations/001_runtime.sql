-- Runtime state: everything a suspended run needs to resume, in any process.

-- One row per run that is suspended (or being resumed). Deleted when the run ends,
-- so the table only ever holds live work.
CREATE TABLE run_snapshots (
  run_id        text PRIMARY KEY,
  root_run_id   text NOT NULL,
  parent_run_id text,
  agent_id      text NOT NULL,
  thread_id     text,
  resource_id   text,
  status        text NOT NULL CHECK (status IN ('suspended', 'running')),
  snapshot      jsonb NOT NULL,
  suspended_at  timestamptz NOT NULL DEFAULT now(),
  claimed_at    timestamptz
);
CREATE INDEX run_snapshots_thread ON run_snapshots (thread_id, resource_id) WHERE parent_run_id IS NULL;
CREATE INDEX run_snapshots_agent ON run_snapshots (agent_id) WHERE parent_run_id IS NULL;

-- A tool call waiting on something outside the model: a human decision (approval),
-- data for a tool that suspended itself (suspension), or a sub-agent run (delegation).
-- Rows outlive the run: they are the record a late click is answered from.
CREATE TABLE pending_actions (
  id              integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id          text NOT NULL,
  root_run_id     text NOT NULL,
  tool_call_id    text NOT NULL,
  tool_name       text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('approval', 'suspension', 'delegation')),
  args            jsonb NOT NULL,
  fingerprint     text,
  suspend_payload jsonb,
  path            jsonb,
  status          text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'resumed', 'resolved', 'cancelled', 'superseded')),
  requester       text,
  policy_version  text,
  quorum          integer NOT NULL DEFAULT 1,
  approvals       jsonb NOT NULL DEFAULT '[]',
  expires_at      timestamptz,
  decided_by      text,
  decided_at      timestamptz,
  reason          text,
  resume_data     jsonb,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX pending_actions_one_open ON pending_actions (run_id, tool_call_id) WHERE status = 'pending';
CREATE INDEX pending_actions_root ON pending_actions (root_run_id, id);
CREATE INDEX pending_actions_run ON pending_actions (run_id) WHERE status = 'pending';
CREATE INDEX pending_actions_expiry ON pending_actions (expires_at) WHERE status = 'pending' AND kind = 'approval';

-- Single-use permission to execute exactly the approved call.
CREATE TABLE approval_grants (
  id             integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  action_id      integer NOT NULL REFERENCES pending_actions (id),
  run_id         text NOT NULL,
  tool_call_id   text NOT NULL,
  fingerprint    text NOT NULL,
  approvers      jsonb NOT NULL,
  requester      text,
  policy_version text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  consumed_at    timestamptz
);
CREATE INDEX approval_grants_open ON approval_grants (run_id, tool_call_id) WHERE consumed_at IS NULL;

-- Append-only record of every transition.
CREATE TABLE audit_events (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at             timestamptz NOT NULL DEFAULT clock_timestamp(),
  event          text NOT NULL,
  run_id         text NOT NULL,
  tool_call_id   text,
  tool_name      text,
  actor          text,
  fingerprint    text,
  policy_version text,
  detail         jsonb
);
CREATE INDEX audit_events_run ON audit_events (run_id, id);
CREATE INDEX audit_events_at ON audit_events (at);

CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only';
END;
$$;
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

-- Thread memory: the conversation an agent sees on its next run in the same thread.
CREATE TABLE thread_messages (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  thread_id   text NOT NULL,
  resource_id text NOT NULL,
  message     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX thread_messages_thread ON thread_messages (thread_id, resource_id, id);
