-- A notice's claim and its delivery apart: a claim whose instance stopped before posting
-- (sent_at still NULL after CARD_REPAIR_AFTER_MS) is claimed again by another instance's sweep,
-- as unposted cards are. Notices claimed before this column existed count as sent.
ALTER TABLE slack_notices ADD COLUMN sent_at timestamptz;
UPDATE slack_notices SET sent_at = claimed_at;
