-- A remembered approval is used only for a call whose requirement now asks nothing more than the
-- one it satisfied when it was given (the limits a call goes over can raise the quorum, change
-- the approvers, ask for a reason or make it high-risk). `requirement` is that requirement:
-- { quorum, approvers, allowSelfApproval, requireReason }; NULL on approvals remembered before
-- it was kept, which are used only where neither that request nor the call went over a limit.
ALTER TABLE remembered_grants ADD COLUMN requirement jsonb;

-- Why a remembered approval matching the call was not used, so its card says so (after a
-- restart too): { rememberedGrantId, allowedBy, approvals, expiresAt, why: [...] }; NULL otherwise.
ALTER TABLE pending_actions ADD COLUMN remembered_unused jsonb;
