import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/sandbox/harness.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness({ echoBotMessages: false });
});
afterEach(async () => {
  await h.close();
});

const home = (text: string, actionId = 'inbox.approve') => ({
  type: 'home' as const,
  blocks: [
    { type: 'section', text: { type: 'mrkdwn', text } },
    { type: 'actions', block_id: 'approval:7', elements: [{ type: 'button', action_id: actionId, text: { type: 'plain_text', text: 'Approve' }, value: '{"a":7}' }] },
  ],
});

describe('the bot’s Home tab in the sandbox', () => {
  it('opening it sends app_home_opened; views.publish shows one view per person, kept under the same id', async () => {
    expect((await h.ui('/ui/open-home', { user: 'U0BOB' })).json).toEqual({ ok: true });
    const opened = await h.receiver.waitFor((r) => r.kind === 'event' && r.body.event?.type === 'app_home_opened');
    expect(opened.signatureValid).toBe(true);
    expect(opened.body.event).toMatchObject({ type: 'app_home_opened', user: 'U0BOB', channel: 'D0BOB', tab: 'home' });
    expect(opened.body.event.view).toBeUndefined();

    const first = await h.client.views.publish({ user_id: 'U0BOB', view: home('Waiting for you (1)') });
    const second = await h.client.views.publish({ user_id: 'U0BOB', view: home('Waiting for you (0)') });
    expect(second.view?.id).toBe(first.view?.id);
    const state = (await (await fetch(`${h.sandbox.url}/ui/state?user=U0BOB`)).json()) as { home: { blocks: Array<{ text?: { text: string } }> } };
    expect(state.home.blocks[0]!.text!.text).toBe('Waiting for you (0)');
    const alice = (await (await fetch(`${h.sandbox.url}/ui/state?user=U0ALICE`)).json()) as { home: unknown };
    expect(alice.home).toBeNull();

    // Opened again, the event carries the view now published, as Slack's does.
    await h.ui('/ui/open-home', { user: 'U0BOB' });
    const again = await h.receiver.waitFor((r) => r.kind === 'event' && r.body.event?.type === 'app_home_opened' && r.body.event.view !== undefined);
    expect(again.body.event.view.id).toBe(first.view?.id);
  });

  it('views.publish refuses someone who is not in the workspace and a view that is not a Home view', async () => {
    const fails = (p: Promise<unknown>) => p.then(() => undefined, (e: { data?: { error?: string } }) => e.data?.error);
    expect(await fails(h.client.views.publish({ user_id: 'U0NOBODY', view: home('x') }))).toBe('invalid_user');
    expect(await fails(h.client.views.publish({ user_id: 'U0BOB', view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] } as never }))).toBe('invalid_arguments');
  });

  it('a button on the Home tab sends block_actions from the view: a view container, no channel', async () => {
    const published = await h.client.views.publish({ user_id: 'U0BOB', view: home('one request') });
    const clicked = await h.ui('/ui/action', { user: 'U0BOB', viewId: published.view?.id, blockId: 'approval:7', actionId: 'inbox.approve' });
    expect(clicked.json).toMatchObject({ ok: true });
    const payload = (await h.receiver.waitFor((r) => r.kind === 'interaction' && r.body?.type === 'block_actions')).body;
    expect(payload.container).toEqual({ type: 'view', view_id: published.view?.id });
    expect(payload.channel).toBeUndefined();
    expect(payload.view.type).toBe('home');
    expect(payload.actions[0]).toMatchObject({ action_id: 'inbox.approve', block_id: 'approval:7', value: '{"a":7}' });
    // Another person cannot click on Bob's Home.
    expect((await h.ui('/ui/action', { user: 'U0ALICE', viewId: published.view?.id, blockId: 'approval:7', actionId: 'inbox.approve' })).status).toBe(404);
  });
});

describe('slash commands typed in the sandbox', () => {
  it('/approvals goes to the bot as Slack’s signed flat form, and respond() answers only the person who typed it', async () => {
    const sent = await h.ui('/ui/command', { user: 'U0CAROL', channel: 'C0GENERAL', text: '/approvals  42 ' });
    expect(sent.json).toMatchObject({ ok: true });
    const received = await h.receiver.waitFor((r) => r.rawBody.includes('command=%2Fapprovals'));
    expect(received.signatureValid).toBe(true);
    expect(received.contentType).toContain('application/x-www-form-urlencoded');
    const form = new URLSearchParams(received.rawBody);
    expect(Object.fromEntries(form)).toMatchObject({ command: '/approvals', text: '42', user_id: 'U0CAROL', channel_id: 'C0GENERAL', team_id: 'T0SANDBOX' });
    expect(form.get('trigger_id')).toBeTruthy();

    const response = await fetch(form.get('response_url')!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ response_type: 'ephemeral', text: 'Request #42: …' }) });
    expect(response.status).toBe(200);
    const carol = (await (await fetch(`${h.sandbox.url}/ui/state?user=U0CAROL`)).json()) as { ephemerals: Array<{ text: string; channel: string }> };
    expect(carol.ephemerals).toMatchObject([{ text: 'Request #42: …', channel: 'C0GENERAL' }]);
    const bob = (await (await fetch(`${h.sandbox.url}/ui/state?user=U0BOB`)).json()) as { ephemerals: unknown[] };
    expect(bob.ephemerals).toEqual([]);
  });

  it('refuses a command the app does not declare, text that is not a command, and a channel the person is not in', async () => {
    expect((await h.ui('/ui/command', { user: 'U0ALICE', channel: 'C0GENERAL', text: '/deploy now' })).json.error).toBe('/deploy is not a valid command');
    expect((await h.ui('/ui/command', { user: 'U0ALICE', channel: 'C0GENERAL', text: 'approvals' })).json.error).toBe('not_a_command');
    expect((await h.ui('/ui/command', { user: 'U0ALICE', channel: 'D0BOB', text: '/approvals' })).status).toBe(404);
  });
});
