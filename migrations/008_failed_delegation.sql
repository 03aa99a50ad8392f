-- A delegation whose sub-agent failed: the caller is told why (the row's reason) and carries on,
-- as it does when one of its own tools fails, instead of the failure being retried by every sweep.
ALTER TABLE pending_actions DROP CONSTRAINT pending_actions_status_check;
ALTER TABLE pending_actions ADD CONSTRAINT pending_actions_status_check
  CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'resumed', 'resolved', 'cancelled', 'superseded', 'failed'));
