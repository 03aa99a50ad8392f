-- Notices the Slack app's sweep sends about a waiting approval request: reminders ('remind:1',
-- 'remind:2', …), the last warning before expiry ('warn') and the escalation ('escalate'). When
-- each is due is worked out from the request (created_at, expires_at) and the policy at sweep
-- time; a row here is the claim of the one instance that sends it, written by a single INSERT …
-- ON CONFLICT DO NOTHING, so each notice goes out once across instances and restarts.
CREATE TABLE slack_notices (
  action_id  integer NOT NULL REFERENCES pending_actions (id),
  notice     text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (action_id, notice)
);
