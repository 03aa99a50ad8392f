import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool } from '../../../src/agent/tool.js';
import { Agent } from '../../../src/agent/agent.js';
import { scriptedModel } from '../../helpers/scripted-model.js';

const tool = (id: string) => createTool({ id, description: 'finds users', inputSchema: z.object({ name: z.string() }), execute: async ({ name }) => ({ name }) });

describe('createTool ids', () => {
  it("takes any non-empty id, as Mastra does ('Find user tool'); the model-facing name is the key in tools", () => {
    const findUser = tool('Find user tool');
    expect(findUser.id).toBe('Find user tool');
    const agent = new Agent({ id: 'users', model: scriptedModel([{ text: 'hi' }]), tools: { findUserTool: findUser } });
    expect(agent.toolSpecs.map((s) => s.name)).toEqual(['findUserTool']);
  });

  it('refuses an empty id, and the agent refuses a key providers would reject', () => {
    expect(() => tool('')).toThrow(/needs an id/);
    expect(() => tool('   ')).toThrow(/needs an id/);
    expect(() => new Agent({ id: 'users', model: scriptedModel([{ text: 'hi' }]), tools: { 'Find user tool': tool('x') } })).toThrow(/Tool key "Find user tool" must match/);
  });
});

describe('createTool previews', () => {
  const base = { id: 'p', description: 'p', inputSchema: z.object({ id: z.string() }), execute: async () => 'ok' };
  it("refuses a preview that is not a function and an onPreviewError other than 'refuse' or 'ask'", () => {
    expect(() => createTool({ ...base, preview: 'yes' as never })).toThrow(/preview must be a function/);
    expect(() => createTool({ ...base, preview: async () => ({ stateDigest: 'v1' }), onPreviewError: 'skip' as never })).toThrow(/onPreviewError must be 'refuse' or 'ask'/);
    expect(createTool({ ...base, preview: async () => ({ stateDigest: 'v1' }), onPreviewError: 'ask' }).onPreviewError).toBe('ask');
  });
});
