-- An approver may edit a request's arguments before approving: the request is closed as `edited`
-- and a new one (the same tool call, the edited arguments, their own fingerprint) takes its place.
-- `edit` on the new request says where it came from: {fromActionId, editor, proposedArgs} (the
-- model's own arguments), which the card draws its "edited by" line from and the runtime tells
-- the model about. NULL on every request nobody edited, so those cost nothing more.
ALTER TABLE pending_actions DROP CONSTRAINT pending_actions_status_check;
ALTER TABLE pending_actions ADD CONSTRAINT pending_actions_status_check
  CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'resumed', 'resolved', 'cancelled', 'superseded', 'failed', 'edited'));
ALTER TABLE pending_actions ADD COLUMN edit jsonb;
