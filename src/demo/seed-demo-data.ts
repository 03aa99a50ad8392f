import { demoDb, type AnyKysely } from './demo-tables.js';

export const demoRecords = [
  { id: 'abc-123', title: 'Q3 vendor contract', owner: 'alice' },
  { id: 'def-456', title: 'Onboarding checklist draft', owner: 'bob' },
  { id: 'ghi-789', title: 'Old staging credentials note', owner: 'carol' },
] as const;

export const demoOrders = [
  { id: '1042', customer: 'Acme Corp', total_cents: 5_000 },
  { id: '1043', customer: 'Globex', total_cents: 250_000 },
  { id: '1044', customer: 'Initech', total_cents: 12_500 },
] as const;

export interface SeedResult {
  /** Rows this call inserted; 0 when they were already there. */
  records: number;
  orders: number;
}

/**
 * Puts the demo rows in place. Existing rows are left exactly as they are, so
 * restarting the bot never undoes what an approved call did (a deleted record
 * stays deleted, a refunded order keeps its refunds), and several instances
 * starting at once do not conflict.
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
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return {
    records: Number(records.numInsertedOrUpdatedRows ?? 0n),
    orders: Number(orders.numInsertedOrUpdatedRows ?? 0n),
  };
}
