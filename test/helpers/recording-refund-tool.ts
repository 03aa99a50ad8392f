import { z } from 'zod';
import { createTool } from '../../src/agent/tool.js';

/**
 * `issue_refund` (order id, amount in cents, an optional note: a flat schema, so cards offer
 * Edit), recording each execution so tests can say what ran, with which arguments, how often.
 */
export function recordingRefundTool() {
  const refunds: unknown[] = [];
  const issueRefund = createTool({
    id: 'issue_refund',
    description: 'Refund an order',
    inputSchema: z.object({
      orderId: z.string().describe('The order to refund'),
      amountCents: z.number().int().positive(),
      note: z.string().optional(),
    }),
    execute: async (input: { orderId: string; amountCents: number }) => {
      refunds.push(input);
      return { refunded: input.amountCents };
    },
  });
  return { issueRefund, refunds };
}
