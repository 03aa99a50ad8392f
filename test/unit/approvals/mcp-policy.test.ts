import { describe, expect, it } from 'vitest';
import { definePolicy } from '../../../src/approvals/define-policy.js';
import { requirementFor } from '../../../src/approvals/requirement-for.js';
import { PolicyError } from '../../../src/approvals/policy-error.js';
import { mcpServerOf, mcpToolName, parseMcpPattern } from '../../../src/approvals/mcp-tool-name.js';

const github = (tool: string, readOnlyHint?: boolean) => ({ server: 'github', tool, ...(readOnlyHint === undefined ? {} : { readOnlyHint }) });

describe('MCP tool names', () => {
  it('are <server>__<tool>, with characters providers refuse replaced, and at most 64 long', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github__create_issue');
    expect(mcpToolName('docs', 'search.pages/v2')).toBe('docs__search_pages_v2');
    const long = mcpToolName('github', 'x'.repeat(100));
    expect(long).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(long).not.toBe(mcpToolName('github', 'x'.repeat(101)));
  });

  it('name their server only when it is one of the given servers', () => {
    expect(mcpServerOf('github__create_issue', ['docs', 'github'])).toBe('github');
    expect(mcpServerOf('github__create_issue', ['docs'])).toBeUndefined();
    expect(mcpServerOf('delete_record', ['github'])).toBeUndefined();
  });

  it('policy patterns are server.tool or server.*', () => {
    expect(parseMcpPattern('github.*')).toEqual({ server: 'github', tool: '*' });
    expect(parseMcpPattern('github.create_issue')).toEqual({ server: 'github', tool: 'create_issue' });
    expect(parseMcpPattern('delete_record')).toBeUndefined();
    expect(parseMcpPattern('.x')).toBeUndefined();
  });
});

describe('requirementFor an MCP tool', () => {
  const policy = definePolicy({
    defaults: { requireApproval: false, expiresIn: '1h' },
    tools: {
      'github.*': { requireApproval: true, approvers: ['S0DEVS'] },
      'github.create_issue': { requireApproval: true, approvers: ['U0LEAD'], rules: [{ when: { arg: 'labels', op: 'eq', value: ['urgent'] }, then: { quorum: 2, approvers: ['U0LEAD', 'U0CTO'] } }] },
      github__delete_repo: { requireApproval: true, approvers: ['U0CTO'] },
      'docs.search': { requireApproval: false },
    },
  });

  it('takes the most specific entry: the model-facing name, then server.tool, then server.*', () => {
    expect(requirementFor(policy, 'github__delete_repo', {}, github('delete_repo')).approvers).toEqual(['U0CTO']);
    expect(requirementFor(policy, 'github__create_issue', {}, github('create_issue')).approvers).toEqual(['U0LEAD']);
    expect(requirementFor(policy, 'github__list_issues', {}, github('list_issues')).approvers).toEqual(['S0DEVS']);
  });

  it('applies the matched entry\'s rules', () => {
    const r = requirementFor(policy, 'github__create_issue', { labels: ['urgent'] }, github('create_issue'));
    expect(r).toMatchObject({ quorum: 2, approvers: ['U0CTO', 'U0LEAD'] });
  });

  it('asks for approval for an MCP tool no entry names, even when the defaults do not', () => {
    expect(requirementFor(policy, 'jira__create_ticket', {}, { server: 'jira', tool: 'create_ticket' })).toMatchObject({ requireApproval: true, expiresInMs: 3_600_000 });
    // The same name as a native tool (no MCP identity) falls to the defaults.
    expect(requirementFor(policy, 'jira__create_ticket', {}).requireApproval).toBe(false);
  });

  it('lets readOnlyHint skip approval only where the policy trusts the hint', () => {
    const untrusting = requirementFor(policy, 'jira__get', {}, { server: 'jira', tool: 'get', readOnlyHint: true });
    expect(untrusting.requireApproval).toBe(true);
    const trusting = definePolicy({ mcp: { trustReadOnlyHint: ['jira'] } });
    expect(requirementFor(trusting, 'jira__get', {}, { server: 'jira', tool: 'get', readOnlyHint: true }).requireApproval).toBe(false);
    expect(requirementFor(trusting, 'jira__put', {}, { server: 'jira', tool: 'put', readOnlyHint: false }).requireApproval).toBe(true);
    expect(requirementFor(trusting, 'other__get', {}, { server: 'other', tool: 'get', readOnlyHint: true }).requireApproval).toBe(true);
    const all = definePolicy({ mcp: { trustReadOnlyHint: true } });
    expect(requirementFor(all, 'other__get', {}, { server: 'other', tool: 'get', readOnlyHint: true }).requireApproval).toBe(false);
  });

  it('never lets a trusted hint override an entry that asks for approval', () => {
    const p = definePolicy({ mcp: { trustReadOnlyHint: true }, tools: { 'github.*': { requireApproval: true } } });
    expect(requirementFor(p, 'github__list', {}, github('list', true)).requireApproval).toBe(true);
  });

  it('keeps the version of policies without mcp, and changes it with mcp', () => {
    const plain = definePolicy({ tools: { a: { requireApproval: true } } });
    const withMcp = definePolicy({ tools: { a: { requireApproval: true } }, mcp: { trustReadOnlyHint: false } });
    expect(plain.version).toBe(definePolicy({ tools: { a: { requireApproval: true } } }).version);
    expect(withMcp.version).not.toBe(plain.version);
  });

  it('refuses a dotted key that is no MCP pattern, and a bad mcp section, naming them', () => {
    expect(() => definePolicy({ tools: { 'git hub.x': {} } })).toThrow(PolicyError);
    expect(() => definePolicy({ tools: { 'git hub.x': {} } })).toThrow(/server\.tool/);
    expect(() => definePolicy({ mcp: { trustReadOnlyHint: 'yes' as never } })).toThrow(/mcp/);
  });
});
