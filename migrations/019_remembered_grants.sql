-- "Approve and allow for …": a remembered approval lets later calls of the same tool with the same
-- arguments, by the same requester under the same policy version, run without a card until it
-- expires or is revoked. Each use still writes an approved request and a spent single-use grant.
CREATE TABLE remembered_grants (
  id             integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The request whose approval created it (its run, thread and card).
  action_id      integer NOT NULL REFERENCES pending_actions (id),
  agent_id       text NOT NULL,
  path           jsonb NOT NULL,
  tool_name      text NOT NULL,
  fingerprint    text NOT NULL,
  args           jsonb NOT NULL,
  requester      text NOT NULL,
  policy_version text NOT NULL,
  approvers      jsonb NOT NULL,
  created_by     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  revoked_by     text
);
CREATE UNIQUE INDEX remembered_grants_action ON remembered_grants (action_id);
CREATE INDEX remembered_grants_match ON remembered_grants (fingerprint, requester, policy_version) WHERE revoked_at IS NULL;
CREATE INDEX remembered_grants_live ON remembered_grants (agent_id, expires_at) WHERE revoked_at IS NULL;
