import { sql, type ColumnType, type Generated, type Kysely } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** Kysely's view of the tables `createDemoTables` creates. */
interface DemoTables {
  demo_records: {
    id: string;
    title: string;
    owner: string;
    deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  };
  demo_orders: {
    id: string;
    customer: string;
    total_cents: number;
    refunded_cents: ColumnType<number, number | undefined, number>;
  };
  demo_refunds: {
    id: Generated<number>;
    order_id: string;
    amount_cents: number;
    reason: string | null;
    created_at: Timestamp;
  };
  demo_deployments: {
    id: Generated<number>;
    service: string;
    environment: 'staging' | 'production';
    version: string;
    confirmed_by: string | null;
    created_at: Timestamp;
  };
}

export type DemoDb = Kysely<DemoTables>;

/**
 * The demo tables live beside the runtime's in the same database, but the runtime's
 * `DB` type deliberately does not know them; callers hand over whichever Kysely they have.
 */
export type AnyKysely = Kysely<any>;

export function demoDb(db: AnyKysely): DemoDb {
  return db as DemoDb;
}

/*
 * The tables the demo agents act on, so approving a call in Slack visibly changes
 * something. The demo creates them when it starts rather than the product's
 * migrations, so a deployment running its own agents never gets them. Databases
 * that applied the retired migration 002 have them already, with their rows: hence
 * IF NOT EXISTS throughout, and definitions that stay exactly what 002 created.
 */
const demoTablesSql = `
CREATE TABLE IF NOT EXISTS demo_records (
  id         text PRIMARY KEY,
  title      text NOT NULL,
  owner      text NOT NULL,
  -- Soft delete: an approved deletion stays inspectable and can be undone by hand.
  deleted_at timestamptz
);

CREATE TABLE IF NOT EXISTS demo_orders (
  id             text PRIMARY KEY,
  customer       text NOT NULL,
  total_cents    integer NOT NULL CHECK (total_cents >= 0),
  -- The last line of defence against over-refunding, whatever the tool code does.
  refunded_cents integer NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0 AND refunded_cents <= total_cents)
);

CREATE TABLE IF NOT EXISTS demo_refunds (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id     text NOT NULL REFERENCES demo_orders (id),
  amount_cents integer NOT NULL CHECK (amount_cents > 0),
  reason       text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS demo_refunds_order ON demo_refunds (order_id);

CREATE TABLE IF NOT EXISTS demo_deployments (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  service      text NOT NULL,
  environment  text NOT NULL CHECK (environment IN ('staging', 'production')),
  version      text NOT NULL,
  -- Who confirmed a production deploy, when the caller knows; staging deploys need no one.
  confirmed_by text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
`;

/**
 * Creates the demo tables where they are missing and leaves existing ones and
 * their rows alone. IF NOT EXISTS alone is not enough when several instances
 * start at once (two concurrent CREATEs of one table can both pass the check and
 * one then fails), so they take turns on an advisory lock keyed on the schema.
 */
export async function createDemoTables(db: AnyKysely): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('approval-bot-demo-tables:' || current_schema()))`.execute(trx);
    await sql.raw(demoTablesSql).execute(trx);
  });
}
