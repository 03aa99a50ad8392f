import { sql } from 'kysely';
import { demoDb, type AnyKysely } from './demo-tables.js';

export const demoRecords = [
  { id: 'abc-123', title: 'Q3 vendor contract', owner: 'alice' },
  { id: 'def-456', title: 'Onboarding checklist draft', owner: 'bob' },
  { id: 'ghi-789', title: 'Old staging credentials note', owner: 'carol' },
] as const;

/**
 * Order 1042 is the one the README's refunds use, so it is large enough ($1,000,000) that they can
 * be tried any number of times; 1044 is small, so refunding more than is left can be tried too.
 */
const demoOrders = [
  { id: '1042', customer: 'Acme Corp', total_cents: 100_000_000 },
  { id: '1043', customer: 'Globex', total_cents: 250_000 },
  { id: '1044', customer: 'Initech', total_cents: 12_500 },
] as const;

export interface SeedResult {
  /** Rows this call inserted (orders: or raised to the seeded total); 0 when they were already there. */
  records: number;
  orders: number;
}

/**
 * Puts the demo rows in place. Existing rows are left as they are, so restarting
 * the bot never undoes what an approved call did (a deleted record stays deleted,
 * a refunded order keeps its refunds), and several instances starting at once do
 * not conflict. The one change: an order whose total is below the seeded one (a
 * database from a version with smaller orders) is raised to it.
 */
export async function seedDemoData(db: AnyKysely): Promise<SeedResult> {
  const demo = demoDb(db);
  const records = await demo
    .insertInto('demo_records')
    .values(demoRecords.map((r) => ({ ...r })))
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  const orders = await demo
    .insertInto('demo_orders')
    .values(demoOrders.map((o) => ({ ...o })))
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ total_cents: sql<number>`excluded.total_cents` })
        .where('demo_orders.total_cents', '<', sql<number>`excluded.total_cents`),
    )
    .executeTakeFirst();
  return {
    records: Number(records.numInsertedOrUpdatedRows ?? 0n),
    orders: Number(orders.numInsertedOrUpdatedRows ?? 0n),
  };
}
