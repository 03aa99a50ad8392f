-- Cumulative limits (policy `limits`): a counter per (policy entry, measure, subject) holding the
-- calls of its window, and the limits a request went over.

-- One row per counter. `at`, `amounts` and `calls` are parallel arrays, one element per counted
-- call (calls holds a hash of run id and tool call id, so evaluating the same call again replaces
-- its element instead of counting it twice). A call is counted by one INSERT … ON CONFLICT DO
-- UPDATE that prunes the window and appends the call: the conflicting row is locked and the SET
-- reads its latest committed version, so concurrent calls are counted one after the other and
-- each sees every call before it. Kept to a bounded size (see src/db/limit-usage.ts).
CREATE TABLE limit_usage (
  tool_key  text NOT NULL,
  measure   text NOT NULL,
  subject   text NOT NULL,
  window_ms bigint NOT NULL,
  at        timestamptz[] NOT NULL,
  amounts   double precision[] NOT NULL,
  calls     bigint[] NOT NULL,
  PRIMARY KEY (tool_key, measure, subject)
);

-- The limits a request went over ([{ limit, sum|count, by, requester, total, above, overMs }]);
-- NULL for every request no limit tightened. The decision applies the same limits' `then`.
ALTER TABLE pending_actions ADD COLUMN limit_hits jsonb;
