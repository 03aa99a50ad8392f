import { sql } from 'kysely';
import { z } from 'zod';
import { createTool } from '../../agent/tool.js';
import { demoDb, type AnyKysely } from '../demo-tables.js';

const issueRefundInput = z.object({
  orderId: z.string().trim().min(1, 'orderId must not be empty').describe('The order id, e.g. "1042"'),
  amountCents: z
    .number()
    .int('amountCents must be a whole number of cents')
    .positive('amountCents must be more than zero')
    .describe('The amount to refund in cents: 1250 is $12.50'),
  reason: z.string().trim().min(1).optional().describe('Why the customer is refunded'),
});

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** `150050` → `$1,500.50`. */
function formatUsdCents(cents: number): string {
  return usd.format(cents / 100);
}

interface IssueRefundResult {
  refundId: number;
  orderId: string;
  amountCents: number;
  /** Everything refunded on the order so far, this refund included. */
  refundedCents: number;
  remainingCents: number;
}

/**
 * Refunds part or all of an order. Refusals are thrown, so the model receives them as a
 * tool error rather than a result it might read as success.
 */
export function createIssueRefundTool({ db }: { db: AnyKysely }) {
  const demo = demoDb(db);
  return createTool({
    id: 'issue_refund',
    description:
      'Refund an amount (in cents) on a customer order. A person must approve each refund; large refunds need two approvers.',
    inputSchema: issueRefundInput,
    requireApproval: true,
    describe: ({ orderId, amountCents, reason }) => {
      const amount = formatUsdCents(amountCents);
      return {
        title: `Refund ${amount} on order ${orderId}`,
        fields: [
          { label: 'Amount', value: amount },
          { label: 'Order', value: orderId },
          ...(reason ? [{ label: 'Reason', value: reason }] : []),
        ],
      };
    },
    execute: async ({ orderId, amountCents, reason }): Promise<IssueRefundResult> =>
      demo.transaction().execute(async (trx) => {
        // Checking the limit inside the UPDATE (not with a SELECT first) means two
        // approved refunds racing on one order cannot together exceed its total.
        const order = await trx
          .updateTable('demo_orders')
          .set({ refunded_cents: sql<number>`refunded_cents + ${amountCents}` })
          .where('id', '=', orderId)
          .where(sql<boolean>`refunded_cents + ${amountCents} <= total_cents`)
          .returning(['total_cents', 'refunded_cents'])
          .executeTakeFirst();
        if (!order) {
          const existing = await trx
            .selectFrom('demo_orders')
            .select(['customer', 'total_cents', 'refunded_cents'])
            .where('id', '=', orderId)
            .executeTakeFirst();
          if (!existing) throw new Error(`There is no order ${orderId}, so nothing was refunded.`);
          // Said in money and names: the model passes it on, and people read it in the thread.
          const remaining = existing.total_cents - existing.refunded_cents;
          const left = remaining > 0 ? `has only ${formatUsdCents(remaining)} left to refund of its ${formatUsdCents(existing.total_cents)}` : `is already refunded in full (${formatUsdCents(existing.total_cents)})`;
          throw new Error(`Order ${orderId} (${existing.customer}) ${left}, so ${formatUsdCents(amountCents)} was not refunded.`);
        }
        const refund = await trx
          .insertInto('demo_refunds')
          .values({ order_id: orderId, amount_cents: amountCents, reason: reason ?? null })
          .returning('id')
          .executeTakeFirstOrThrow();
        return {
          refundId: refund.id,
          orderId,
          amountCents,
          refundedCents: order.refunded_cents,
          remainingCents: order.total_cents - order.refunded_cents,
        };
      }),
  });
}
