-- A request whose process stopped between writing it and posting its card has no card, and
-- nobody would see it until it expired. The sweep posts such cards; the instance that claims
-- a request here is the one that posts its card, so two sweeps never post it twice.
CREATE TABLE slack_card_repairs (
  action_id  integer PRIMARY KEY REFERENCES pending_actions (id),
  claimed_at timestamptz NOT NULL DEFAULT now()
);
