-- Slack front end: what lets any instance answer any delivery, click or expiry.

-- Slack redelivers an event (same event_id) when the first delivery was not
-- acknowledged in time; Bolt does not de-duplicate, so the first insert wins.
CREATE TABLE slack_events (
  event_id    text PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX slack_events_received ON slack_events (received_at);

-- Where each card was posted, so it can be updated in place after a decision,
-- an answer or the expiry sweep, by whichever instance gets there.
CREATE TABLE slack_cards (
  action_id  integer PRIMARY KEY REFERENCES pending_actions (id),
  channel    text NOT NULL,
  ts         text NOT NULL,
  thread_ts  text,
  kind       text NOT NULL CHECK (kind IN ('approval', 'question', 'suspension')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The thread a top-level run belongs to: continuations (after a click on
-- another instance, or an expiry) post their answers and new cards there.
-- thread_ts is null for top-level messages in a DM.
CREATE TABLE slack_threads (
  run_id     text PRIMARY KEY,
  channel    text NOT NULL,
  thread_ts  text,
  team_id    text,
  requester  text,
  created_at timestamptz NOT NULL DEFAULT now()
);
