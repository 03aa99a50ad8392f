-- Every suspension and decision pays for each index it touches, inside the commit.
-- pending_actions_run duplicated the leading column of pending_actions_one_open
-- under the same predicate, so lookups of a run's pending calls use that one.
DROP INDEX pending_actions_run;

-- The audit log is append-only and written in time order, so a block-range index
-- answers "since" queries at a fraction of a b-tree's upkeep on every insert.
DROP INDEX audit_events_at;
CREATE INDEX audit_events_at ON audit_events USING brin (at);
