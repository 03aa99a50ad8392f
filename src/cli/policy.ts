#!/usr/bin/env node
import { isAbsolute, resolve } from 'node:path';
import { parseMcpPattern } from '../approvals/mcp-tool-name.js';
import type { Policy } from '../approvals/policy-types.js';
import { errorMessage } from '../error-message.js';
import { argumentsOrExit, parseCommandLine, UsageError } from './parse-command-line.js';
import type { CaseResult } from './policy-report.js';

const USAGE = [
  'usage: npm run policy -- test <cases.yaml> [--policy <file>]',
  '       npm run policy -- explain --tool <name> [--args <json>] [--as <U…>] [--at <time>] [--mcp <server.tool>] [--policy <file>]',
  '  (where the bot is a dependency: npx slack-approval-policy test … | explain …)',
  '  test     evaluates every case of the file as the bot would, prints a table, exits 1 if any case does not match',
  '  explain  prints every rule, limit, freeze and deny the call meets, the verdict and who may decide',
  "  --policy the policy file (.yaml, .yml, .json); default: the cases file's `policy`, else POLICY_FILE",
  '  --tool   the tool name as the model calls it',
  '  --args   the call\'s arguments as JSON (default {})',
  '  --as     the requester\'s Slack user id; leave it out for a run nobody requested (unattended)',
  '  --at     when the call is made (which freezes are in force), e.g. 2026-12-24T10:00:00Z; default now',
  '  --mcp    the MCP server and tool behind the name, as server.tool',
].join('\n');

type Command =
  | { command: 'test'; cases: string; policy?: string }
  | { command: 'explain'; tool: string; args: unknown; as?: string; at: Date; mcp?: { server: string; tool: string }; policy?: string };

/** The command line, checked: a mistake is a UsageError (exit 2), never a guess. */
function parsePolicyArgs(argv: string[], now: Date): Command | 'help' {
  const parsed = parseCommandLine(
    argv,
    {
      allowPositionals: true,
      options: {
        policy: { type: 'string' },
        tool: { type: 'string' },
        args: { type: 'string' },
        as: { type: 'string' },
        at: { type: 'string' },
        mcp: { type: 'string' },
      },
    },
    USAGE,
  );
  if (parsed === 'help') return parsed;
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  const policy = values.policy !== undefined ? { policy: values.policy } : {};
  if (command === 'test') {
    if (rest.length !== 1) throw new UsageError(`test takes one cases file, got ${rest.length}\n${USAGE}`);
    for (const flag of ['tool', 'args', 'as', 'at', 'mcp'] as const) if (values[flag] !== undefined) throw new UsageError(`--${flag} is for explain; test reads its calls from the cases file\n${USAGE}`);
    return { command: 'test', cases: rest[0]!, ...policy };
  }
  if (command === 'explain') {
    if (rest.length > 0) throw new UsageError(`explain takes no file: unexpected "${rest[0]}"\n${USAGE}`);
    if (values.tool === undefined || values.tool === '') throw new UsageError(`explain needs --tool <name>\n${USAGE}`);
    let args: unknown = {};
    if (values.args !== undefined) {
      try {
        args = JSON.parse(values.args);
      } catch (error) {
        throw new UsageError(`--args must be JSON, e.g. '{"amountCents": 5000}': ${errorMessage(error)}\n${USAGE}`);
      }
    }
    if (values.as !== undefined && !/^[UW][A-Z0-9]{2,}$/.test(values.as)) throw new UsageError(`--as must be a Slack user id (U…, W…), got "${values.as}"\n${USAGE}`);
    const at = values.at === undefined ? now : new Date(values.at);
    if (values.at !== undefined && (!/(Z|[+-]\d{2}:\d{2})$/.test(values.at) || Number.isNaN(at.getTime()))) {
      throw new UsageError(`--at must be a date and time with its offset, e.g. 2026-12-24T10:00:00Z, got "${values.at}"\n${USAGE}`);
    }
    const mcp = values.mcp === undefined ? undefined : parseMcpPattern(values.mcp);
    if (values.mcp !== undefined && (mcp === undefined || mcp.tool === '*')) throw new UsageError(`--mcp must be server.tool, got "${values.mcp}"\n${USAGE}`);
    return {
      command: 'explain',
      tool: values.tool,
      args,
      at,
      ...(values.as !== undefined ? { as: values.as } : {}),
      ...(mcp ? { mcp: { server: mcp.server, tool: mcp.tool } } : {}),
      ...policy,
    };
  }
  throw new UsageError(`${command === undefined ? 'a command is required' : `unknown command "${command}"`}: test or explain\n${USAGE}`);
}

/** Prints `message` to stderr and ends the process with `code`: 2 for anything that stops the check from running. */
function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

const now = new Date();
const command = argumentsOrExit(() => parsePolicyArgs(process.argv.slice(2), now), USAGE);
// Loaded once the arguments are good, so that --help or a mistyped flag answers without first
// loading the configuration (zod, the logger), YAML and the policy's evaluation.
const [{ loadConfig }, { loadPolicyFile }, { evaluateCall }, { loadPolicyCases }, { explainText, mismatches, resultTable }] = await Promise.all([
  import('../config.js'),
  import('../approvals/load-policy-file.js'),
  import('../approvals/evaluate-call.js'),
  import('./policy-cases.js'),
  import('./policy-report.js'),
]);
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  fail(errorMessage(error));
}
const here = (path: string) => (isAbsolute(path) ? path : resolve(config.invocationDir, path));

/** The policy to evaluate against, and how to name it: --policy, else the cases file's, else POLICY_FILE. */
function policyFrom(...candidates: Array<string | undefined>): { policy: Policy; source: string } {
  const path = candidates.find((c) => c !== undefined);
  if (path === undefined) fail(`No policy given: pass --policy <file>, name one as \`policy:\` in a cases file, or set POLICY_FILE.\n${USAGE}`);
  try {
    return { policy: loadPolicyFile(path), source: path };
  } catch (error) {
    fail(errorMessage(error));
  }
}

if (command.command === 'test') {
  let file: ReturnType<typeof loadPolicyCases>;
  try {
    file = loadPolicyCases(here(command.cases), now);
  } catch (error) {
    fail(errorMessage(error));
  }
  const { policy, source } = policyFrom(command.policy !== undefined ? here(command.policy) : undefined, file.policy, config.policyFile);
  const results: CaseResult[] = file.cases.map((c) => {
    const evaluation = evaluateCall(policy, c.call);
    return { case: c, evaluation, problems: mismatches(c.expect, evaluation.verdict) };
  });
  console.log(`Policy ${policy.version} (${source}), ${results.length} case${results.length === 1 ? '' : 's'}\n`);
  console.log(resultTable(results));
  process.exit(results.some((r) => r.problems.length > 0) ? 1 : 0);
} else {
  const { policy, source } = policyFrom(command.policy !== undefined ? here(command.policy) : undefined, config.policyFile);
  const call = { toolName: command.tool, args: command.args, requester: command.as ?? null, at: command.at, ...(command.mcp ? { mcp: command.mcp } : {}) };
  console.log(explainText(policy, source, call, evaluateCall(policy, call)));
}
