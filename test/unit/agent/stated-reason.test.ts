import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Writable } from 'node:stream';
import { createTool } from '../../../src/agent/tool.js';
import { MAX_STATED_REASON, STATED_REASON_FIELD, offersStatedReason, takeStatedReason, withStatedReason } from '../../../src/agent/stated-reason.js';
import { parseCallInput } from '../../../src/agent/step-loop.js';
import { mcpTools } from '../../../src/mcp/mcp-tools.js';
import type { McpConnection } from '../../../src/mcp/mcp-connection.js';
import { createLogger } from '../../../src/logger.js';

const plain = createTool({ id: 'close', description: 'close', inputSchema: z.object({ id: z.number() }), execute: async () => 'ok' });

describe('the reserved field for the model\'s stated reason', () => {
  it('is added to object schemas only, and left alone where the schema already has a property of that name', () => {
    expect(withStatedReason({ type: 'object', properties: { id: { type: 'number' } }, required: ['id'], additionalProperties: false })).toEqual({
      type: 'object',
      properties: { id: { type: 'number' }, [STATED_REASON_FIELD]: expect.objectContaining({ type: 'string', maxLength: MAX_STATED_REASON }) },
      required: ['id'],
      additionalProperties: false,
    });
    expect(withStatedReason({ type: 'object' })).toMatchObject({ properties: { [STATED_REASON_FIELD]: { type: 'string' } } });
    expect(withStatedReason({ type: 'string' })).toEqual({ type: 'string' });
    const own = { type: 'object' as const, properties: { [STATED_REASON_FIELD]: { type: 'number' as const } } };
    expect(withStatedReason(own)).toBe(own);
  });

  it('is offered for a tool of code unless its zod schema names it or is not an object', () => {
    expect(offersStatedReason(plain)).toBe(true);
    const named = createTool({ id: 'n', description: 'n', inputSchema: z.object({ [STATED_REASON_FIELD]: z.string() }), execute: async () => 'ok' });
    expect(offersStatedReason(named)).toBe(false);
    const scalar = createTool({ id: 's', description: 's', inputSchema: z.string(), execute: async () => 'ok' });
    expect(offersStatedReason(scalar)).toBe(false);
    expect(parseCallInput({ kind: 'tool', tool: named }, 'n', JSON.stringify({ [STATED_REASON_FIELD]: 'mine' }))).toEqual({ ok: true, args: { [STATED_REASON_FIELD]: 'mine' } });
  });

  it('is taken out of the input before the schema sees it: trimmed, blank is none, null is none', () => {
    expect(takeStatedReason({ id: 1, [STATED_REASON_FIELD]: '  because  ' })).toEqual({ input: { id: 1 }, statedReason: 'because' });
    expect(takeStatedReason({ id: 1, [STATED_REASON_FIELD]: ' ' })).toEqual({ input: { id: 1 } });
    expect(takeStatedReason({ id: 1, [STATED_REASON_FIELD]: null })).toEqual({ input: { id: 1 } });
    expect(takeStatedReason({ id: 1 })).toEqual({ input: { id: 1 } });
    expect(takeStatedReason('not an object')).toEqual({ input: 'not an object' });
    expect(takeStatedReason({ [STATED_REASON_FIELD]: ['a'] })).toEqual({ invalid: `${STATED_REASON_FIELD}: expected text` });
    expect(parseCallInput({ kind: 'tool', tool: plain }, 'close', `{"id": 3, "${STATED_REASON_FIELD}": "done"}`)).toEqual({ ok: true, args: { id: 3 }, statedReason: 'done' });
  });

  it("an MCP server's tool with an argument of that name keeps it, and the log says so", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _e, done) => void (lines.push(chunk.toString('utf8')), done()) }));
    const connection = { config: { name: 'finance' } } as unknown as McpConnection;
    const tools = mcpTools(connection, [{ name: 'approve_line', inputSchema: { type: 'object', properties: { line: { type: 'string' }, [STATED_REASON_FIELD]: { type: 'string' } } } }], new Map(), logger);
    const tool = tools.finance__approve_line!;
    expect(withStatedReason(tool.inputJsonSchema!, tool)).toBe(tool.inputJsonSchema);
    expect(parseCallInput({ kind: 'tool', tool }, 'finance__approve_line', { line: 'L1', [STATED_REASON_FIELD]: 'plan' })).toEqual({ ok: true, args: { line: 'L1', [STATED_REASON_FIELD]: 'plan' } });
    expect(lines.join('')).toContain('no stated reason is offered for this tool');
  });
});
