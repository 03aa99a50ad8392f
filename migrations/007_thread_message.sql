-- The message that started a run (its ts), so that an instance taking the run over
-- after a stop can clear the working reaction the stopped process left on it.
ALTER TABLE slack_threads ADD COLUMN message_ts text;
