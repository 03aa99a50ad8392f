import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Received } from '../helpers/sandbox/harness.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness({ echoBotMessages: false });
});
afterEach(async () => {
  await h.close();
});

const eventOf = (type: string) => (r: Received) => r.kind === 'event' && r.body.event?.type === type;

describe('events the sandbox delivers for what people type', () => {
  it('sends a signed app_mention, then a message event, for a mention in #general', async () => {
    const posted = await h.ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: '@approvals delete record abc-123 & <b>x</b>' });
    expect(posted.json).toMatchObject({ ok: true, channel: 'C0GENERAL' });
    const mention = await h.receiver.waitFor(eventOf('app_mention'));
    const message = await h.receiver.waitFor(eventOf('message'));
    expect(h.receiver.received.indexOf(mention)).toBeLessThan(h.receiver.received.indexOf(message));
    for (const r of [mention, message]) {
      expect(r.signatureValid).toBe(true);
      expect(r.contentType).toContain('application/json');
      expect(r.body).toMatchObject({
        type: 'event_callback',
        team_id: 'T0SANDBOX',
        api_app_id: expect.any(String),
        event_id: expect.stringMatching(/^Ev/),
        event_time: expect.any(Number),
        authorizations: [{ user_id: 'U0BOT', is_bot: true }],
      });
      expect(r.body.event).toMatchObject({
        user: 'U0ALICE',
        channel: 'C0GENERAL',
        ts: posted.json.ts,
        event_ts: posted.json.ts,
        // Slack escapes &, < and > in what people type, and writes mentions as <@U…>.
        text: '<@U0BOT> delete record abc-123 &amp; &lt;b&gt;x&lt;/b&gt;',
        client_msg_id: expect.any(String),
      });
      expect(r.body.event.blocks[0]).toMatchObject({ type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: 'U0BOT' }, { type: 'text', text: ' delete record abc-123 & <b>x</b>' }] }] });
      expect(r.body.event.thread_ts).toBeUndefined();
    }
    expect(mention.body.event.channel_type).toBeUndefined();
    expect(message.body.event.channel_type).toBe('channel');
    expect(mention.body.event_id).not.toBe(message.body.event_id);
  });

  it('marks thread replies with thread_ts and parent_user_id', async () => {
    const root = await h.ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: 'a thread root' });
    await h.ui('/ui/message', { user: 'U0BOB', channel: 'C0GENERAL', text: 'a reply', threadTs: root.json.ts });
    const reply = await h.receiver.waitFor((r) => eventOf('message')(r) && r.body.event.text === 'a reply');
    expect(reply.body.event).toMatchObject({ user: 'U0BOB', thread_ts: root.json.ts, parent_user_id: 'U0ALICE', channel_type: 'channel' });
    expect(h.sandbox.store.message('C0GENERAL', root.json.ts)).toMatchObject({ reply_count: 1, reply_users: ['U0BOB'] });
  });

  it('sends a DM as a message event with channel_type im and no app_mention', async () => {
    await h.ui('/ui/message', { user: 'U0CAROL', channel: 'D0CAROL', text: '@approvals hi there' });
    const dm = await h.receiver.waitFor(eventOf('message'));
    expect(dm.body.event).toMatchObject({ channel: 'D0CAROL', channel_type: 'im', user: 'U0CAROL' });
    await h.sandbox.idle();
    expect(h.receiver.received.some(eventOf('app_mention'))).toBe(false);
  });

  it('refuses what a person could not do in Slack', async () => {
    expect((await h.ui('/ui/message', { user: 'U0NOBODY', channel: 'C0GENERAL', text: 'x' })).json).toMatchObject({ ok: false, error: 'unknown_user' });
    expect((await h.ui('/ui/message', { user: 'U0ALICE', channel: 'D0BOB', text: 'x' })).status).toBe(404);
    expect((await h.ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: '   ' })).json).toMatchObject({ error: 'no_text' });
  });

  it('echoes the bot’s own posts back as message events with bot_id, when asked to', async () => {
    await h.close();
    h = await startHarness({ echoBotMessages: true });
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'from the bot' });
    const echo = await h.receiver.waitFor(eventOf('message'));
    expect(echo.signatureValid).toBe(true);
    expect(echo.body.event).toMatchObject({ bot_id: 'B0BOT', user: 'U0BOT', ts: posted.ts, text: 'from the bot', channel_type: 'channel' });
    await h.client.chat.update({ channel: 'C0GENERAL', ts: posted.ts!, text: 'edited' });
    const changed = await h.receiver.waitFor((r) => r.body.event?.subtype === 'message_changed');
    expect(changed.body.event).toMatchObject({ message: { text: 'edited', ts: posted.ts }, previous_message: { text: 'from the bot' } });
  });

  it('tells the person at the screen when the bot refuses a delivery', async () => {
    h.receiver.respondWith(() => ({ status: 401 }));
    await h.ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: 'hello' });
    await h.sandbox.idle();
    expect(h.sandbox.store.notices().some((n) => n.level === 'error' && n.text.includes('HTTP 401'))).toBe(true);
  });
});

describe('interactions the sandbox delivers for clicks and picks', () => {
  const card = [
    { type: 'section', block_id: 'intro', text: { type: 'mrkdwn', text: '*Pick*' } },
    {
      type: 'actions',
      block_id: 'question:7',
      elements: [
        { type: 'checkboxes', action_id: 'question.answer', options: [{ text: { type: 'plain_text', text: 'abc-123' }, value: '0', description: { type: 'plain_text', text: 'first' } }, { text: { type: 'plain_text', text: 'def-456' }, value: '1' }] },
        { type: 'button', action_id: 'question.submit', text: { type: 'plain_text', text: 'Submit' }, style: 'primary', value: '{"a":7}' },
      ],
    },
    { type: 'actions', block_id: 'menu', elements: [{ type: 'static_select', action_id: 'env', placeholder: { type: 'plain_text', text: 'Env' }, options: [{ text: { type: 'plain_text', text: 'prod' }, value: 'prod' }] }] },
  ];

  it('sends a signed block_actions form for a button, with the message, container and a trigger_id', async () => {
    const root = await h.ui('/ui/message', { user: 'U0ALICE', channel: 'C0GENERAL', text: '@approvals go' });
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', thread_ts: root.json.ts, text: 'card', blocks: card as never });
    const clicked = await h.ui('/ui/action', { user: 'U0BOB', channel: 'C0GENERAL', messageTs: posted.ts, blockId: 'question:7', actionId: 'question.submit' });
    expect(clicked.json).toMatchObject({ ok: true, status: 200 });
    const r = await h.receiver.waitFor((x) => x.kind === 'interaction');
    expect(r.signatureValid).toBe(true);
    expect(r.contentType).toContain('application/x-www-form-urlencoded');
    expect(r.rawBody.startsWith('payload=')).toBe(true);
    expect(r.body).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0BOB', name: 'bob' },
      container: { type: 'message', message_ts: posted.ts, channel_id: 'C0GENERAL', is_ephemeral: false, thread_ts: root.json.ts },
      trigger_id: expect.stringMatching(/^\d+\.\d+\.[0-9a-f]+$/),
      channel: { id: 'C0GENERAL', name: 'general' },
      message: { ts: posted.ts, bot_id: 'B0BOT', thread_ts: root.json.ts, blocks: card },
      response_url: expect.stringContaining('/response-url/'),
      actions: [{ type: 'button', action_id: 'question.submit', block_id: 'question:7', value: '{"a":7}', style: 'primary', text: { text: 'Submit' }, action_ts: expect.any(String) }],
    });
    expect(r.body.state.values).toEqual({
      'question:7': { 'question.answer': { type: 'checkboxes', selected_options: [] } },
      menu: { env: { type: 'static_select', selected_option: null } },
    });
  });

  it('remembers what a person ticked and sends it with their Submit click, as full option objects', async () => {
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'card', blocks: card as never });
    const ticked = await h.ui('/ui/action', { user: 'U0ALICE', channel: 'C0GENERAL', messageTs: posted.ts, blockId: 'question:7', actionId: 'question.answer', selectedOptions: ['0', '1'] });
    expect(ticked.json.ok).toBe(true);
    const tick = await h.receiver.waitFor((x) => x.kind === 'interaction');
    expect(tick.body.actions[0]).toMatchObject({ type: 'checkboxes', selected_options: [card[1]!.elements![0]!.options![0], card[1]!.elements![0]!.options![1]] });
    // Bob's screen has its own selection: nothing ticked.
    await h.ui('/ui/action', { user: 'U0BOB', channel: 'C0GENERAL', messageTs: posted.ts, blockId: 'question:7', actionId: 'question.submit' });
    await h.ui('/ui/action', { user: 'U0ALICE', channel: 'C0GENERAL', messageTs: posted.ts, blockId: 'question:7', actionId: 'question.submit' });
    await h.sandbox.idle();
    const submits = h.receiver.received.filter((x) => x.kind === 'interaction' && x.body.actions[0].action_id === 'question.submit');
    expect(submits.map((s) => [s.body.user.id, s.body.state.values['question:7']['question.answer'].selected_options.map((o: { value: string }) => o.value)])).toEqual([
      ['U0BOB', []],
      ['U0ALICE', ['0', '1']],
    ]);
  });

  it('sends a static_select pick with selected_option and refuses options the menu does not have', async () => {
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'card', blocks: card as never });
    await h.ui('/ui/action', { user: 'U0ALICE', messageTs: posted.ts, blockId: 'menu', actionId: 'env', selectedOption: 'prod' });
    const pick = await h.receiver.waitFor((x) => x.kind === 'interaction');
    expect(pick.body.actions[0]).toMatchObject({ type: 'static_select', action_id: 'env', block_id: 'menu', selected_option: { value: 'prod', text: { text: 'prod' } } });
    const bad = await h.ui('/ui/action', { user: 'U0ALICE', messageTs: posted.ts, blockId: 'menu', actionId: 'env', selectedOption: 'staging' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/^invalid_choice/);
    expect((await h.ui('/ui/action', { user: 'U0ALICE', messageTs: posted.ts, blockId: 'menu', actionId: 'nope' })).status).toBe(404);
  });

  it('marks clicks on an ephemeral message as is_ephemeral and leaves the message out', async () => {
    await h.client.chat.postEphemeral({ channel: 'C0GENERAL', user: 'U0ALICE', text: 'private', blocks: [{ type: 'actions', block_id: 'b', elements: [{ type: 'button', action_id: 'ok', text: { type: 'plain_text', text: 'OK' } }] }] });
    const eph = h.sandbox.store.ephemeralsFor('U0ALICE').at(-1)!;
    await h.ui('/ui/action', { user: 'U0ALICE', messageTs: eph.ts, blockId: 'b', actionId: 'ok' });
    const r = await h.receiver.waitFor((x) => x.kind === 'interaction');
    expect(r.body.container).toMatchObject({ is_ephemeral: true, message_ts: eph.ts });
    expect(r.body.message).toBeUndefined();
  });
});

describe('modals', () => {
  const modal = {
    type: 'modal' as const,
    callback_id: 'suspension.respond_modal',
    private_metadata: '{"a":3}',
    notify_on_close: true,
    title: { type: 'plain_text' as const, text: 'Provide input' },
    submit: { type: 'plain_text' as const, text: 'Submit' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      { type: 'input', block_id: 'reason', label: { type: 'plain_text', text: 'Reason' }, optional: true, element: { type: 'plain_text_input', action_id: 'value', multiline: true } },
      { type: 'input', block_id: 'amount', label: { type: 'plain_text', text: 'Amount' }, element: { type: 'number_input', action_id: 'value', is_decimal_allowed: false } },
      { type: 'input', block_id: 'env', label: { type: 'plain_text', text: 'Env' }, element: { type: 'static_select', action_id: 'value', options: [{ text: { type: 'plain_text', text: 'staging' }, value: '0' }, { text: { type: 'plain_text', text: 'production' }, value: '1' }] } },
      { type: 'input', block_id: 'confirmed', label: { type: 'plain_text', text: 'Confirmed' }, element: { type: 'radio_buttons', action_id: 'value', options: [{ text: { type: 'plain_text', text: 'Yes' }, value: 'true' }, { text: { type: 'plain_text', text: 'No' }, value: 'false' }] } },
      { type: 'input', block_id: 'checks', label: { type: 'plain_text', text: 'Checks' }, optional: true, element: { type: 'checkboxes', action_id: 'value', options: [{ text: { type: 'plain_text', text: 'Runbook' }, value: 'runbook' }] } },
    ],
  };

  async function openModal(user: string): Promise<string> {
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'card', blocks: [{ type: 'actions', block_id: 'suspension:3', elements: [{ type: 'button', action_id: 'suspension.respond', text: { type: 'plain_text', text: 'Respond' } }] }] });
    await h.ui('/ui/action', { user, messageTs: posted.ts, blockId: 'suspension:3', actionId: 'suspension.respond' });
    const click = await h.receiver.waitFor((x) => x.kind === 'interaction' && x.body.type === 'block_actions');
    const opened = await h.client.views.open({ trigger_id: click.body.trigger_id, view: modal as never });
    return opened.view!.id!;
  }

  it('checks required fields like Slack’s client and sends nothing until they are filled', async () => {
    const viewId = await openModal('U0ALICE');
    const result = await h.ui('/ui/view-submission', { user: 'U0ALICE', viewId, values: { amount: { value: '2.5' } } });
    expect(result.json).toMatchObject({ ok: false, outcome: 'kept', errors: { amount: 'Enter a whole number.', env: 'Please complete this required field.', confirmed: 'Please complete this required field.' } });
    await h.sandbox.idle();
    expect(h.receiver.received.some((x) => x.body?.type === 'view_submission')).toBe(false);
  });

  it('sends a view_submission with typed state values, shows the bot’s field errors, and closes on a plain ack', async () => {
    const viewId = await openModal('U0BOB');
    h.receiver.respondWith((r) => (r.body.type === 'view_submission' && r.body.view.state.values.amount.value.value === '13' ? { body: { response_action: 'errors', errors: { amount: 'Too unlucky.' } } } : undefined));
    const values = { reason: { value: 'line one\nline two' }, amount: { value: '13' }, env: { value: '1' }, confirmed: { value: 'true' }, checks: { value: ['runbook'] } };
    const refused = await h.ui('/ui/view-submission', { user: 'U0BOB', viewId, values });
    expect(refused.json).toMatchObject({ ok: false, errors: { amount: 'Too unlucky.' }, outcome: 'kept' });
    expect(h.sandbox.store.views('U0BOB').map((v) => v.id)).toEqual([viewId]);

    const accepted = await h.ui('/ui/view-submission', { user: 'U0BOB', viewId, values: { ...values, amount: { value: '12' } } });
    expect(accepted.json).toMatchObject({ ok: true, outcome: 'closed' });
    expect(h.sandbox.store.views('U0BOB')).toEqual([]);
    const submission = h.receiver.received.filter((x) => x.body?.type === 'view_submission').at(-1)!;
    expect(submission.signatureValid).toBe(true);
    expect(submission.body).toMatchObject({ type: 'view_submission', user: { id: 'U0BOB' }, trigger_id: expect.any(String), view: { id: viewId, callback_id: 'suspension.respond_modal', private_metadata: '{"a":3}' } });
    expect(submission.body.view.state.values).toEqual({
      reason: { value: { type: 'plain_text_input', value: 'line one\nline two' } },
      amount: { value: { type: 'number_input', value: '12' } },
      env: { value: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'production' }, value: '1' } } },
      confirmed: { value: { type: 'radio_buttons', selected_option: { text: { type: 'plain_text', text: 'Yes' }, value: 'true' } } },
      checks: { value: { type: 'checkboxes', selected_options: [{ text: { type: 'plain_text', text: 'Runbook' }, value: 'runbook' }] } },
    });
  });

  it('applies response_action update, and sends view_closed when the modal asked for it', async () => {
    const viewId = await openModal('U0CAROL');
    h.receiver.respondWith((r) => (r.body.type === 'view_submission' ? { body: { response_action: 'update', view: { ...modal, title: { type: 'plain_text', text: 'Step two' }, blocks: [] } } } : undefined));
    const result = await h.ui('/ui/view-submission', { user: 'U0CAROL', viewId, values: { amount: { value: '1' }, env: { value: '0' }, confirmed: { value: 'false' } } });
    expect(result.json).toMatchObject({ ok: true, outcome: 'updated' });
    expect(h.sandbox.store.views('U0CAROL')[0]).toMatchObject({ id: viewId, title: { text: 'Step two' } });
    await h.ui('/ui/view-close', { user: 'U0CAROL', viewId });
    const closed = await h.receiver.waitFor((x) => x.body?.type === 'view_closed');
    expect(closed.body).toMatchObject({ user: { id: 'U0CAROL' }, view: { id: viewId }, is_cleared: false });
    expect(h.sandbox.store.views('U0CAROL')).toEqual([]);
  });

  it('only lets the person whose screen shows a modal submit it', async () => {
    const viewId = await openModal('U0ALICE');
    expect((await h.ui('/ui/view-submission', { user: 'U0BOB', viewId, values: {} })).status).toBe(404);
  });

  it('sends clicks inside a modal with container type view and the inputs as they are', async () => {
    const view = {
      ...modal,
      blocks: [
        modal.blocks[0]!,
        { type: 'actions', block_id: 'tools', elements: [{ type: 'button', action_id: 'preview', text: { type: 'plain_text', text: 'Preview' } }] },
      ],
    };
    const opened = await h.client.views.open({ trigger_id: h.sandbox.store.issueTrigger('U0ALICE'), view: view as never });
    await h.ui('/ui/action', { user: 'U0ALICE', viewId: opened.view!.id, blockId: 'tools', actionId: 'preview', viewValues: { reason: { value: 'draft text' } } });
    const r = await h.receiver.waitFor((x) => x.body?.type === 'block_actions' && x.body.container?.type === 'view');
    expect(r.body).toMatchObject({ container: { type: 'view', view_id: opened.view!.id }, view: { id: opened.view!.id, callback_id: 'suspension.respond_modal' }, actions: [{ action_id: 'preview', block_id: 'tools' }] });
    expect(r.body.view.state.values).toEqual({ reason: { value: { type: 'plain_text_input', value: 'draft text' } } });
    expect(r.body.message).toBeUndefined();
  });
});

describe('who may drive the sandbox', () => {
  it('refuses UI requests from other sites and requests addressed to other host names', async () => {
    const url = `${h.sandbox.url}/ui/message`;
    const body = JSON.stringify({ user: 'U0ALICE', channel: 'C0GENERAL', text: 'hi' });
    const plain = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    expect(plain.status).toBe(415);
    const crossSite = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body });
    expect(crossSite.status).toBe(403);
    const sandboxed = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'null' }, body });
    expect(sandboxed.status).toBe(403);
    const sameSite = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.sandbox.url }, body });
    expect(sameSite.status).toBe(200);

    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${h.sandbox.url}/ui/state?user=U0ALICE`, { headers: { host: 'rebound.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
    expect(h.sandbox.store.messages('C0GENERAL').filter((m) => m.text === 'hi')).toHaveLength(1);
  });
});
