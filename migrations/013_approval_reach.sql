-- Reaching the approvers: the notices the sweep sends, and the copies of cards routed to them.

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

-- Copies of a card routed to the approvers (their DMs, an approvals channel): [{ "channel", "ts" }].
-- They are the same request as the card in the thread and are redrawn with it, so they live on its
-- row: a click or a redraw that reads the card reads its copies in the same statement.
ALTER TABLE slack_cards ADD COLUMN copies jsonb NOT NULL DEFAULT '[]';
