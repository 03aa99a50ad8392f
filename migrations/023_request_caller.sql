-- What started a run nobody requested (StreamOptions.caller: an API caller or a scheduled job,
-- e.g. 'nightly-billing'), kept with each request of the run so a card can say "requested by no
-- person — by <agent> / <caller>"; NULL when the run named none.
ALTER TABLE pending_actions ADD COLUMN caller text;
