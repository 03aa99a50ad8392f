import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './fake-providers.js';

/** One reply of the fake model: text, or calls of tools by name with their arguments. */
type FakeReply = { text: string } | { toolCalls: Array<{ name: string; args: unknown }> };

export interface FakeOpenAI {
  /** The base URL to give as OPENAI_BASE_URL (…/v1). */
  baseUrl: string;
  /** The request bodies received, oldest first. */
  requests: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * OpenAI's Responses API on loopback, answering each POST /v1/responses with
 * the next scripted reply (the last one repeats) as the server-sent events
 * the real API streams: what `openai/<model>` in the AI SDK talks to, so code
 * written for the real provider runs against it unchanged (OPENAI_BASE_URL).
 * A reply that depends on the conversation can be a function of the request.
 */
export async function startFakeOpenAI(script: Array<FakeReply | ((request: Record<string, unknown>) => FakeReply)>): Promise<FakeOpenAI> {
  const requests: Array<Record<string, unknown>> = [];
  let turn = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/responses') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
      requests.push(body);
      const step = script[Math.min(turn++, script.length - 1)]!;
      const reply = typeof step === 'function' ? step(body) : step;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of events(reply, String(body.model ?? 'fake'), turn)) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function events(reply: FakeReply, model: string, turn: number): Array<Record<string, unknown>> {
  const created = { type: 'response.created', response: { id: `resp_${turn}`, created_at: Math.floor(Date.now() / 1000), model } };
  const completed = {
    type: 'response.completed',
    response: { usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 } } },
  };
  if ('text' in reply) {
    const id = `msg_${turn}`;
    return [
      created,
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id } },
      { type: 'response.output_text.delta', item_id: id, delta: reply.text },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'message', id } },
      completed,
    ];
  }
  const out: Array<Record<string, unknown>> = [created];
  reply.toolCalls.forEach((call, index) => {
    const id = `fc_${turn}_${index}`;
    const callId = `call_${turn}_${index}`;
    const args = JSON.stringify(call.args);
    out.push(
      { type: 'response.output_item.added', output_index: index, item: { type: 'function_call', id, call_id: callId, name: call.name, arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: id, output_index: index, delta: args },
      { type: 'response.output_item.done', output_index: index, item: { type: 'function_call', id, call_id: callId, name: call.name, arguments: args, status: 'completed' } },
    );
  });
  out.push(completed);
  return out;
}
