/**
 * The model providers the bot talks to, on loopback, each speaking its own wire format as the
 * real API does: OpenAI's Responses API (what `openai/<model>` calls) and Chat Completions
 * (`openai.chat/<model>`), Anthropic's Messages API, and an OpenAI-compatible server. Every reply
 * is streamed (server-sent events) in pieces, tool calls included, with the events, ids and
 * usage the real APIs send; and every request is checked the way the real API checks it (its
 * key, required fields, each tool result answering a call the model made, each call answered),
 * answering a bad one with that API's error, so a request the real provider would refuse fails
 * here too. What the model says comes from a script that reads the conversation, the same for
 * every provider.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The conversation as the model received it, whatever the wire format. */
export type Turn =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: Array<{ id: string; name: string; args: unknown }> }
  | { role: 'tool'; callId: string; name: string | undefined; output: string };

/** What the model says next: text, tool calls, or both (text first). */
export interface Reply {
  text?: string;
  toolCalls?: Array<{ name: string; args: unknown }>;
}

export type Api = 'openai-responses' | 'openai-chat' | 'anthropic' | 'openai-compatible';

export interface ProviderRequest {
  api: Api;
  body: Record<string, unknown>;
  turns: Turn[];
  /** The names of the tools offered. */
  tools: string[];
}

export interface FakeProviders {
  /** OPENAI_BASE_URL: the Responses API and Chat Completions at `…/responses` and `…/chat/completions`. */
  openaiBaseUrl: string;
  /** ANTHROPIC_BASE_URL: the Messages API at `…/messages`. */
  anthropicBaseUrl: string;
  /** OPENAI_COMPATIBLE_BASE_URL: Chat Completions at `…/chat/completions`. */
  compatibleBaseUrl: string;
  /** The keys each one takes. */
  keys: { openai: string; anthropic: string; compatible: string };
  /** Every request answered with a reply, oldest first. */
  requests: ProviderRequest[];
  /** Every request refused, with the API's error message. */
  refused: Array<{ api: Api; status: number; message: string }>;
  close(): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
  ) {
    super(message);
  }
}

export async function startFakeProviders(script: (turns: Turn[], request: ProviderRequest) => Reply): Promise<FakeProviders> {
  const keys = { openai: 'sk-test-openai-0123456789', anthropic: 'sk-ant-test-0123456789', compatible: 'compat-test-0123456789' };
  const requests: ProviderRequest[] = [];
  const refused: FakeProviders['refused'] = [];
  /** What the Responses API stores of each response it gave (store: true), by item id, for item references. */
  const storedItems = new Map<string, { item: Record<string, unknown>; response: string }>();
  const routes: Record<string, { api: Api; serve: (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void }> = {
    '/openai/v1/responses': { api: 'openai-responses', serve: (body, req, res) => responses(body, req, res) },
    '/openai/v1/chat/completions': { api: 'openai-chat', serve: (body, req, res) => chat('openai-chat', keys.openai, body, req, res) },
    '/compat/v1/chat/completions': { api: 'openai-compatible', serve: (body, req, res) => chat('openai-compatible', keys.compatible, body, req, res) },
    '/anthropic/v1/messages': { api: 'anthropic', serve: (body, req, res) => anthropic(body, req, res) },
  };

  const answer = (api: Api, body: Record<string, unknown>, turns: Turn[], tools: string[]): Reply => {
    const request = { api, body, turns, tools };
    requests.push(request);
    return script(turns, request);
  };

  function responses(body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): void {
    if (req.headers.authorization !== `Bearer ${keys.openai}`) throw new Refusal(401, `Incorrect API key provided: ${masked(req.headers.authorization)}.`);
    const model = requiredString(body, 'model');
    if (body.stream !== true) throw new Refusal(400, 'this fake serves streamed responses only (stream: true)');
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
    if (!Array.isArray(input) || input.length === 0) throw new Refusal(400, "Missing required parameter: 'input'.");
    const turns = responsesTurns(input as Array<Record<string, unknown>>, storedItems);
    if (typeof body.instructions === 'string') turns.unshift({ role: 'system', text: body.instructions });
    const tools = toolNames(body.tools, (t) => (t.type === 'function' ? t.name : undefined));
    const reply = answer('openai-responses', body, turns, tools);
    const store = body.store !== false;
    const responseId = `resp_${hex(24)}`;
    const created = Math.floor(Date.now() / 1000);
    let sequence = 0;
    const send = (event: Record<string, unknown>) => sse(res, { ...event, sequence_number: sequence++ }, String(event.type));
    const shell = (status: string, output: unknown[], usage: unknown) => ({
      id: responseId, object: 'response', created_at: created, status, error: null, incomplete_details: null, instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null, model, output, parallel_tool_calls: true, previous_response_id: null,
      reasoning: { effort: 'medium', summary: null }, store, temperature: 1, text: { format: { type: 'text' } }, tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [], top_p: 1, truncation: 'disabled', usage, user: null, metadata: {},
    });
    openStream(res);
    send({ type: 'response.created', response: shell('in_progress', [], null) });
    send({ type: 'response.in_progress', response: shell('in_progress', [], null) });
    const output: Array<Record<string, unknown>> = [];
    // A reasoning model (gpt-5-mini) reasons before it answers: a reasoning item comes first.
    const reasoning = { id: `rs_${hex(24)}`, type: 'reasoning', summary: [] };
    send({ type: 'response.output_item.added', output_index: 0, item: reasoning });
    send({ type: 'response.output_item.done', output_index: 0, item: reasoning });
    output.push(reasoning);
    if (reply.text !== undefined) {
      const id = `msg_${hex(24)}`;
      const index = output.length;
      send({ type: 'response.output_item.added', output_index: index, item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' } });
      const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
      send({ type: 'response.content_part.added', item_id: id, output_index: index, content_index: 0, part });
      for (const delta of pieces(reply.text, 7)) send({ type: 'response.output_text.delta', item_id: id, output_index: index, content_index: 0, delta, logprobs: [], obfuscation: hex(4) });
      send({ type: 'response.output_text.done', item_id: id, output_index: index, content_index: 0, text: reply.text, logprobs: [] });
      send({ type: 'response.content_part.done', item_id: id, output_index: index, content_index: 0, part: { ...part, text: reply.text } });
      const item = { id, type: 'message', status: 'completed', content: [{ ...part, text: reply.text }], role: 'assistant' };
      send({ type: 'response.output_item.done', output_index: index, item });
      output.push(item);
    }
    for (const call of reply.toolCalls ?? []) {
      const id = `fc_${hex(24)}`;
      const index = output.length;
      const args = JSON.stringify(call.args);
      const base = { id, type: 'function_call', call_id: `call_${hex(12)}`, name: call.name };
      send({ type: 'response.output_item.added', output_index: index, item: { ...base, status: 'in_progress', arguments: '' } });
      for (const delta of pieces(args, 9)) send({ type: 'response.function_call_arguments.delta', item_id: id, output_index: index, delta, obfuscation: hex(4) });
      send({ type: 'response.function_call_arguments.done', item_id: id, output_index: index, arguments: args });
      const item = { ...base, status: 'completed', arguments: args };
      send({ type: 'response.output_item.done', output_index: index, item });
      output.push(item);
    }
    if (store) for (const item of output) storedItems.set(String(item.id), { item, response: responseId });
    const usage = { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 16 }, total_tokens: 160 };
    send({ type: 'response.completed', response: shell('completed', output, usage) });
    res.end();
  }

  function chat(api: Api, key: string, body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): void {
    if (req.headers.authorization !== `Bearer ${key}`) throw new Refusal(401, `Incorrect API key provided: ${masked(req.headers.authorization)}.`);
    const model = requiredString(body, 'model');
    if (body.stream !== true) throw new Refusal(400, 'this fake serves streamed completions only (stream: true)');
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw new Refusal(400, "Missing required parameter: 'messages'.");
    const turns = chatTurns(body.messages as Array<Record<string, unknown>>);
    const tools = toolNames(body.tools, (t) => (t.type === 'function' ? (t.function as { name?: string } | undefined)?.name : undefined));
    const reply = answer(api, body, turns, tools);
    const id = `chatcmpl-${hex(14)}`;
    const created = Math.floor(Date.now() / 1000);
    const options = (body.stream_options ?? {}) as { include_usage?: boolean; include_obfuscation?: boolean };
    // OpenAI pads each chunk with a random `obfuscation` string unless asked not to; other servers do not.
    const padded = api === 'openai-chat' && options.include_obfuscation !== false;
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      sse(res, {
        id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: 'fp_fake',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(options.include_usage ? { usage: null } : {}),
        ...(padded ? { obfuscation: hex(1 + (created % 9)) } : {}),
      });
    openStream(res);
    const calls = (reply.toolCalls ?? []).map((call, index) => ({ index, id: `call_${hex(24)}`, name: call.name, args: JSON.stringify(call.args) }));
    const header = (call: (typeof calls)[number]) => ({ index: call.index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } });
    // The first chunk names the role; a reply that is only tool calls starts the first call in it.
    if (reply.text === undefined && calls.length > 0) chunk({ role: 'assistant', content: null, tool_calls: [header(calls[0]!)], refusal: null }, null);
    else chunk({ role: 'assistant', content: '', refusal: null }, null);
    if (reply.text !== undefined) for (const piece of pieces(reply.text, 7)) chunk({ content: piece }, null);
    for (const call of calls) {
      if (reply.text !== undefined || call.index > 0) chunk({ tool_calls: [header(call)] }, null);
      for (const piece of pieces(call.args, 9)) chunk({ tool_calls: [{ index: call.index, function: { arguments: piece } }] }, null);
    }
    chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop');
    if (options.include_usage) {
      sse(res, {
        id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: 'fp_fake', choices: [],
        usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } },
      });
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }

  function anthropic(body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): void {
    if (req.headers['x-api-key'] !== keys.anthropic) throw new Refusal(401, 'invalid x-api-key', 'authentication_error');
    if (typeof req.headers['anthropic-version'] !== 'string') throw new Refusal(400, 'anthropic-version: header is required');
    const model = requiredString(body, 'model');
    if (typeof body.max_tokens !== 'number') throw new Refusal(400, 'max_tokens: Field required');
    if (body.stream !== true) throw new Refusal(400, 'this fake serves streamed messages only (stream: true)');
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw new Refusal(400, 'messages: Field required');
    const turns = anthropicTurns(body.messages as Array<Record<string, unknown>>);
    const system = typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? (body.system as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n') : undefined;
    if (system) turns.unshift({ role: 'system', text: system });
    const tools = toolNames(body.tools, (t) => (typeof t.name === 'string' ? t.name : undefined));
    const reply = answer('anthropic', body, turns, tools);
    const send = (event: Record<string, unknown>) => sse(res, event, String(event.type));
    openStream(res);
    send({
      type: 'message_start',
      message: { id: `msg_${hex(12)}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 120, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' } },
    });
    let index = 0;
    if (reply.text !== undefined) {
      send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      if (index === 0) send({ type: 'ping' });
      for (const piece of pieces(reply.text, 7)) send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      send({ type: 'content_block_stop', index });
      index++;
    }
    for (const call of reply.toolCalls ?? []) {
      send({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${hex(12)}`, name: call.name, input: {} } });
      if (index === 0) send({ type: 'ping' });
      send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const piece of pieces(JSON.stringify(call.args), 9)) send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
      send({ type: 'content_block_stop', index });
      index++;
    }
    send({ type: 'message_delta', delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 40 } });
    send({ type: 'message_stop' });
    res.end();
  }

  const server: Server = createServer((req, res) => {
    const route = req.method === 'POST' ? routes[req.url ?? ''] : undefined;
    void readBody(req).then((text) => {
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Unknown request URL: ${req.method} ${req.url}` } }));
        return;
      }
      try {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new Refusal(400, 'We could not parse the JSON body of your request.');
        }
        if (typeof body !== 'object' || body === null) throw new Refusal(400, 'The body of your request must be a JSON object.');
        route.serve(body as Record<string, unknown>, req, res);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        refused.push({ api: route.api, status: error.status, message: error.message });
        res.writeHead(error.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(route.api === 'anthropic' ? { type: 'error', error: { type: error.type, message: error.message } } : { error: { message: error.message, type: error.type, param: null, code: null } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    openaiBaseUrl: `${origin}/openai/v1`,
    anthropicBaseUrl: `${origin}/anthropic/v1`,
    compatibleBaseUrl: `${origin}/compat/v1`,
    keys,
    requests,
    refused,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * The Responses API's input as turns, checked as the API checks it: item references name stored
 * items; a stored reasoning item comes with the item that followed it, and a stored function call
 * with its reasoning item; every function_call_output answers a function_call, and every
 * function_call is answered.
 */
function responsesTurns(input: Array<Record<string, unknown>>, stored: Map<string, { item: Record<string, unknown>; response: string }>): Turn[] {
  const items = input.map((entry) => {
    if (entry.type !== 'item_reference') return entry;
    const found = stored.get(String(entry.id));
    if (!found) throw new Refusal(404, `Item with id '${String(entry.id)}' not found.`);
    return found.item;
  });
  items.forEach((item, i) => {
    const id = typeof item.id === 'string' ? item.id : undefined;
    const origin = id ? stored.get(id) : undefined;
    if (item.type === 'reasoning' && origin) {
      const next = items[i + 1];
      if (!next || typeof next.id !== 'string' || stored.get(next.id)?.response !== origin.response) {
        throw new Refusal(400, `Item '${id}' of type 'reasoning' was provided without its required following item.`);
      }
    }
    if (item.type === 'function_call' && origin) {
      const reasoning = [...stored.values()].find((s) => s.response === origin.response && s.item.type === 'reasoning');
      if (reasoning && !items.slice(0, i).some((before) => before.id === reasoning.item.id)) {
        throw new Refusal(400, `Item '${id}' of type 'function_call' was provided without its required 'reasoning' item: '${String(reasoning.item.id)}'.`);
      }
    }
  });
  const turns: Turn[] = [];
  const calls = new Map<string, string>();
  const answered = new Set<string>();
  const assistant = () => {
    const last = turns.at(-1);
    if (last?.role === 'assistant') return last;
    const turn: Turn & { role: 'assistant' } = { role: 'assistant', text: '', toolCalls: [] };
    turns.push(turn);
    return turn;
  };
  for (const item of items) {
    if (item.type === 'function_call') {
      const callId = requiredString(item, 'call_id');
      calls.set(callId, requiredString(item, 'name'));
      assistant().toolCalls.push({ id: callId, name: String(item.name), args: parseArguments(String(item.arguments)) });
    } else if (item.type === 'function_call_output') {
      const callId = requiredString(item, 'call_id');
      if (!calls.has(callId)) throw new Refusal(400, `No tool call found for function call output with call_id ${callId}.`);
      answered.add(callId);
      turns.push({ role: 'tool', callId, name: calls.get(callId), output: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
    } else if (item.type === 'reasoning') {
      continue;
    } else if (item.role === 'assistant') {
      assistant().text += textOf(item.content);
    } else if (item.role === 'user' || item.role === 'system' || item.role === 'developer') {
      turns.push({ role: item.role === 'user' ? 'user' : 'system', text: textOf(item.content) });
    } else {
      throw new Refusal(400, `Invalid value for 'input': unsupported item ${JSON.stringify(item).slice(0, 80)}.`);
    }
  }
  for (const callId of calls.keys()) if (!answered.has(callId)) throw new Refusal(400, `No tool output found for function call ${callId}.`);
  return turns;
}

/** Chat Completions messages as turns: each tool message answers a call of the assistant message before it, and each call is answered. */
function chatTurns(messages: Array<Record<string, unknown>>): Turn[] {
  const turns: Turn[] = [];
  let open = new Map<string, string>();
  const unanswered = () => {
    if (open.size > 0) {
      throw new Refusal(400, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.keys()].join(', ')}`);
    }
  };
  messages.forEach((message, i) => {
    if (message.role === 'tool') {
      const callId = requiredString(message, 'tool_call_id');
      if (!open.has(callId)) throw new Refusal(400, `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${i}])`);
      const name = open.get(callId);
      open.delete(callId);
      turns.push({ role: 'tool', callId, name, output: textOf(message.content) });
      return;
    }
    unanswered();
    if (message.role === 'assistant') {
      const toolCalls = ((message.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }> | undefined) ?? []).map((c) => ({ id: c.id, name: c.function.name, args: parseArguments(c.function.arguments) }));
      open = new Map(toolCalls.map((c) => [c.id, c.name]));
      turns.push({ role: 'assistant', text: message.content == null ? '' : textOf(message.content), toolCalls });
    } else if (message.role === 'user' || message.role === 'system' || message.role === 'developer') {
      turns.push({ role: message.role === 'user' ? 'user' : 'system', text: textOf(message.content) });
    } else {
      throw new Refusal(400, `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'. (messages[${i}].role)`);
    }
  });
  unanswered();
  return turns;
}

/** Anthropic messages as turns: each tool_result answers a tool_use of the message just before, and each tool_use is answered in the next message. */
function anthropicTurns(messages: Array<Record<string, unknown>>): Turn[] {
  const turns: Turn[] = [];
  if (messages[0]?.role !== 'user') throw new Refusal(400, 'messages: first message must use the "user" role');
  let previousUses = new Map<string, string>();
  messages.forEach((message, i) => {
    const blocks: Array<Record<string, unknown>> = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : ((message.content as Array<Record<string, unknown>>) ?? []);
    if (message.role === 'user') {
      const results = new Set<string>();
      blocks.forEach((block, j) => {
        if (block.type === 'tool_result') {
          const id = requiredString(block, 'tool_use_id');
          if (!previousUses.has(id)) {
            throw new Refusal(400, `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
          }
          results.add(id);
          turns.push({ role: 'tool', callId: id, name: previousUses.get(id), output: textOf(block.content) });
        } else if (block.type === 'text') {
          turns.push({ role: 'user', text: String(block.text) });
        }
      });
      const missing = [...previousUses.keys()].filter((id) => !results.has(id));
      if (missing.length > 0) {
        throw new Refusal(400, `messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
      }
      previousUses = new Map();
    } else if (message.role === 'assistant') {
      if (previousUses.size > 0) {
        throw new Refusal(400, `messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...previousUses.keys()].join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
      }
      const toolCalls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: requiredString(b, 'id'), name: requiredString(b, 'name'), args: b.input }));
      previousUses = new Map(toolCalls.map((c) => [c.id, c.name]));
      turns.push({ role: 'assistant', text: blocks.filter((b) => b.type === 'text').map((b) => String(b.text)).join(''), toolCalls });
    } else {
      throw new Refusal(400, `messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
  });
  if (previousUses.size > 0) {
    throw new Refusal(400, `messages.${messages.length - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...previousUses.keys()].join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
  }
  return turns;
}

function toolNames(tools: unknown, nameOf: (tool: Record<string, unknown>) => unknown): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw new Refusal(400, "Invalid type for 'tools': expected an array.");
  return tools.map((tool: Record<string, unknown>, i) => {
    const name = nameOf(tool);
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw new Refusal(400, `Invalid 'tools[${i}].name': string does not match pattern '^[a-zA-Z0-9_-]+$'.`);
    return name;
  });
}

function requiredString(object: Record<string, unknown>, field: string): string {
  const value = object[field];
  if (typeof value !== 'string' || value === '') throw new Refusal(400, `Missing required parameter: '${field}'.`);
  return value;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Refusal(400, `Invalid 'arguments': not valid JSON: ${text.slice(0, 80)}`);
  }
}

/** The text of a message's content in any of the three formats (a string, or parts with `text`). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('');
  return '';
}

function masked(header: string | undefined): string {
  const key = header?.replace(/^Bearer /, '') ?? '';
  return key.length > 8 ? `${key.slice(0, 4)}***${key.slice(-4)}` : '***';
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

function hex(length: number): string {
  return randomBytes(Math.ceil(length / 2)).toString('hex').slice(0, length);
}

function openStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

function sse(res: ServerResponse, data: Record<string, unknown>, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** A request's body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
