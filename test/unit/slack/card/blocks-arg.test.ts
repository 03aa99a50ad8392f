import { webApi } from '@slack/bolt';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../../../src/slack/card/approval-card.js';
import { blocksAsJson } from '../../../../src/slack/transport/slack-web-client.js';
import { nodeHttpFetch } from '../../../../src/slack/transport/node-http-fetch.js';

const blocks = approvalCard({
  actionId: 3,
  runId: 'run-1',
  toolCallId: 'call-1',
  toolName: 'delete_record',
  args: { id: 'abc-123', note: 'a & b <c> "d"' },
  path: [],
  requester: 'U0REQUESTER',
  approvers: ['U0APPROVER'],
  quorum: 1,
  approvals: [],
  expiresAt: new Date('2026-12-01T00:00:00Z'),
  fingerprint: 'f'.repeat(64),
  state: { kind: 'pending' },
});

/** The form body a WebClient sends for chat.postMessage with these blocks. */
async function wireBody(blocksValue: unknown): Promise<string> {
  let body = '';
  const server = createServer((req, res) => {
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"ts":"1.1"}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const client = new webApi.WebClient('xoxb-1', { slackApiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`, fetch: nodeHttpFetch() });
    await client.chat.postMessage({ channel: 'C1', text: 'card', blocks: blocksValue as never });
    return body;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('blocksAsJson', () => {
  it('puts the same bytes on the wire as the blocks array would', async () => {
    const asArray = await wireBody(blocks);
    const asArg = await wireBody(blocksAsJson(blocks));
    expect(asArg).toBe(asArray);
    expect(JSON.parse(new URLSearchParams(asArg).get('blocks')!)).toEqual(blocks);
  });
});
