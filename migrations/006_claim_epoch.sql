-- Every claim on a run (the deciding vote, claimRun, a takeover by the sweep) moves
-- claim_epoch on by one. The process holding a claim renews it only while the epoch
-- is still the one it got, so a process that stalled past its lease and woke up
-- finds out that the run was taken over instead of continuing it a second time.
ALTER TABLE run_snapshots ADD COLUMN claim_epoch integer NOT NULL DEFAULT 0;
