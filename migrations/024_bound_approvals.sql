-- Approvals bound to what will actually happen (see src/agent/bound-call.ts). Every column is
-- NULL for a call that has none of it, so a request of a tool without a preview, of a tool that
-- is not an MCP server's, with no stated reason, stores nothing more.

-- What the model said it makes the call for (the tool input's reserved `_approval_reason`): its
-- own words, shown as such; never passed to the tool, never part of the fingerprint.
ALTER TABLE pending_actions ADD COLUMN stated_reason text;
-- The tool's preview when the call was asked for: { fields?, diff?, stateDigest } or, when it
-- failed and the tool asks anyway (onPreviewError: 'ask'), { failed: "<message>" }.
ALTER TABLE pending_actions ADD COLUMN preview jsonb;
-- The tool's definition as its source (an MCP server) declared it when the call was asked for:
-- { digest, definition: { name, title?, description?, inputSchema, annotations? } }.
ALTER TABLE pending_actions ADD COLUMN tool_pin jsonb;
-- Set on a request that replaces an approved one whose call did not run because what it was bound
-- to moved: { fromActionId, why: state-changed | preview-failed | not-previewed | tool-changed, changes? }.
ALTER TABLE pending_actions ADD COLUMN asked_again jsonb;

-- A grant authorises the call only against the state and tool definition it was approved with.
ALTER TABLE approval_grants ADD COLUMN state_digest text;
ALTER TABLE approval_grants ADD COLUMN tool_digest text;

-- A remembered approval covers later calls only while the preview's state and the tool's
-- definition are what they were when it was given; one for a definition the server replaced ends.
ALTER TABLE remembered_grants ADD COLUMN state_digest text;
ALTER TABLE remembered_grants ADD COLUMN tool_digest text;
