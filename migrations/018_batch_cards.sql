-- Parallel approval calls of one model step share one card (a batch card, split into parts when
-- they do not fit one message). Each member keeps its own slack_cards row, at the message of its
-- part; `batch` lists every member of the batch in order, so a click on any of them redraws
-- the whole batch, after a restart too. NULL for a request with a card of its own.
ALTER TABLE slack_cards ADD COLUMN batch jsonb;
