-- What lets a Slack thread converge on the truth after a process stops or Slack fails a call.

-- One run at a time per conversation, across instances: taken by the mention that starts a run
-- (in the statement that claims its event), released when the run's outcome is shown. A lock
-- whose run is not on record (run_snapshots) and that is older than the run lease belongs to a
-- process that stopped before its run was recorded, and may be taken over.
CREATE TABLE slack_thread_locks (
  agent_id    text NOT NULL,
  thread_id   text NOT NULL,
  resource_id text NOT NULL,
  run_id      text NOT NULL,
  locked_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, thread_id, resource_id)
);
CREATE INDEX slack_thread_locks_run ON slack_thread_locks (run_id);

-- Which state of its request each card was last seen to show (drawn), so a redraw that failed,
-- landed out of order or never happened (the process stopped) is found and made good by the
-- sweep. A card whose request can change no more and that shows it is settled, and no longer
-- looked at.
ALTER TABLE slack_cards
  ADD COLUMN drawn text,
  ADD COLUMN drawn_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN settled boolean NOT NULL DEFAULT false,
  ADD COLUMN repair_claimed_at timestamptz;
-- Cards posted before this migration: taken to show their request as it is now; settled once decided.
UPDATE slack_cards c SET drawn = p.status || ':' || jsonb_array_length(p.approvals), settled = (p.status <> 'pending')
FROM pending_actions p WHERE p.id = c.action_id;
CREATE INDEX slack_cards_unsettled ON slack_cards (action_id) WHERE NOT settled;

-- An answer (run_results) whose process stopped before showing it: the instance that claims it
-- here posts it, once.
CREATE TABLE slack_result_repairs (
  run_id     text PRIMARY KEY,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
