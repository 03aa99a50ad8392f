-- Tables the demo agents act on, so approving a call in Slack visibly changes something.
-- No rows here: seedDemoData() fills them on start, and a deployment that does not use the
-- demo agents carries empty tables rather than fake business data.

CREATE TABLE demo_records (
  id         text PRIMARY KEY,
  title      text NOT NULL,
  owner      text NOT NULL,
  -- Soft delete: an approved deletion stays inspectable and can be undone by hand.
  deleted_at timestamptz
);

CREATE TABLE demo_orders (
  id             text PRIMARY KEY,
  customer       text NOT NULL,
  total_cents    integer NOT NULL CHECK (total_cents >= 0),
  -- The last line of defence against over-refunding, whatever the tool code does.
  refunded_cents integer NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0 AND refunded_cents <= total_cents)
);

CREATE TABLE demo_refunds (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id     text NOT NULL REFERENCES demo_orders (id),
  amount_cents integer NOT NULL CHECK (amount_cents > 0),
  reason       text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX demo_refunds_order ON demo_refunds (order_id);

CREATE TABLE demo_deployments (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  service      text NOT NULL,
  environment  text NOT NULL CHECK (environment IN ('staging', 'production')),
  version      text NOT NULL,
  -- Who confirmed a production deploy, when the caller knows; staging deploys need no one.
  confirmed_by text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
