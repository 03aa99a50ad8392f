-- The approvals inbox (Slack's Home tab and /approvals) lists, per person, the open approval
-- requests, the ones they asked for and the ones they decided. Finished requests pile up, so each
-- list has a partial index that holds only its own rows and is read newest (or oldest) first.
CREATE INDEX pending_actions_open_approvals ON pending_actions (id) WHERE status = 'pending' AND kind = 'approval';
CREATE INDEX pending_actions_requester ON pending_actions (requester, id) WHERE kind = 'approval' AND requester IS NOT NULL;
CREATE INDEX pending_actions_decided_by ON pending_actions (decided_by, decided_at) WHERE kind = 'approval' AND decided_by IS NOT NULL;

-- Who has opened the bot's Home tab, on any instance: Slack shows a Home only once it is opened
-- (and every opening republishes it), so only these people's Homes are kept current when a
-- request changes.
CREATE TABLE slack_home_viewers (
  user_id   text PRIMARY KEY,
  opened_at timestamptz NOT NULL DEFAULT now()
);
