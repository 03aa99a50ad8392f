-- The answer of a finished top-level run, kept until a front end has shown it. Written in the
-- statement that ends the run, so a run that has ended in PostgreSQL never has its answer only
-- in the memory of a process that may stop before showing it. Only for agents whose front end
-- delivers answers (Agent keepResults); the front end deletes the row once the answer is shown.
CREATE TABLE run_results (
  run_id        text PRIMARY KEY,
  agent_id      text NOT NULL,
  thread_id     text,
  resource_id   text,
  text          text NOT NULL,
  finish_reason text NOT NULL,
  finished_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX run_results_agent ON run_results (agent_id, finished_at);
