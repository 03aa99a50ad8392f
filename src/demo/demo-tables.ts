import type { ColumnType, Generated, Kysely } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** Kysely's view of `migrations/002_demo.sql`. */
export interface DemoTables {
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
