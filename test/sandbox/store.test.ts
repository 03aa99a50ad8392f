import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMessages, persistMessages } from '../../src/sandbox/persist.js';
import { normalizeBlocks, stateFromChoice, stateValues, ChoiceError } from '../../src/sandbox/block-elements.js';
import { SandboxStore, messageContainer } from '../../src/sandbox/store.js';
import { typedMessage } from '../../src/sandbox/user-text.js';
import { tempDir } from '../helpers/temp-dir.js';

function store(now = () => Date.now()) {
  return new SandboxStore({ triggerTtlMs: 1000, now });
}

describe('sandbox store', () => {
  it('hands out increasing, unique timestamps even within one millisecond', () => {
    const s = store(() => 1_700_000_000_000);
    const a = s.nextTs();
    const b = s.nextTs();
    expect(a).toBe('1700000000.000000');
    expect(b).toBe('1700000000.000001');
  });

  it('keeps blocks it does not understand, and survives blocks that are not blocks', () => {
    const weird = [{ type: 'table', rows: [[{ x: 1 }]] }, null, 7, 'text', [], { type: 'actions', elements: [null, { type: 'button' }, 'x'] }];
    const normalized = normalizeBlocks(weird);
    expect(normalized[0]).toMatchObject({ type: 'table', rows: [[{ x: 1 }]], block_id: expect.any(String) });
    expect(normalized.slice(1, 5)).toEqual([null, 7, 'text', []]);
    expect((normalized[5] as { elements: unknown[] }).elements[1]).toMatchObject({ type: 'button', action_id: expect.any(String) });
    expect(stateValues(normalized)).toEqual({});
    const s = store();
    const m = s.addMessage({ channel: 'C0GENERAL', text: '', blocks: normalized });
    expect(s.updateMessage('C0GENERAL', m.ts, { blocks: weird })).toBeDefined();
  });

  it('keeps the root’s reply summary right as replies come and go', () => {
    const s = store();
    const root = s.addMessage({ channel: 'C0GENERAL', text: 'root', user: 'U0ALICE' });
    const r1 = s.addMessage({ channel: 'C0GENERAL', text: 'r1', user: 'U0BOB', thread_ts: root.ts });
    s.addMessage({ channel: 'C0GENERAL', text: 'r2', bot_id: 'B0BOT', user: 'U0BOT', thread_ts: root.ts });
    expect(s.message('C0GENERAL', root.ts)).toMatchObject({ thread_ts: root.ts, reply_count: 2, reply_users: ['U0BOB', 'U0BOT'], reply_users_count: 2 });
    expect(r1.parent_user_id).toBe('U0ALICE');
    s.deleteMessage('C0GENERAL', r1.ts);
    expect(s.message('C0GENERAL', root.ts)?.reply_count).toBe(1);
    expect(s.thread('C0GENERAL', root.ts).map((m) => m.text)).toEqual(['root', 'r2']);
  });

  it('lets a trigger open one modal, for its person, within its lifetime', () => {
    let now = 1_000_000;
    const s = store(() => now);
    const t = s.issueTrigger('U0BOB');
    expect(s.useTrigger(t)).toEqual({ ok: true, user: 'U0BOB', ageMs: 0 });
    expect(s.useTrigger(t)).toEqual({ ok: false, error: 'exchanged_trigger_id' });
    const late = s.issueTrigger('U0BOB');
    now += 1001;
    expect(s.useTrigger(late)).toEqual({ ok: false, error: 'expired_trigger_id' });
  });

  it('forgets choices for elements an update removed', () => {
    const s = store();
    const blocks = normalizeBlocks([{ type: 'actions', block_id: 'q', elements: [{ type: 'checkboxes', action_id: 'a', options: [{ text: { type: 'plain_text', text: 'x' }, value: 'x' }] }] }]);
    const m = s.addMessage({ channel: 'C0GENERAL', text: '', blocks });
    const container = messageContainer('C0GENERAL', m.ts);
    s.choose('U0ALICE', container, 'q', 'a', { type: 'checkboxes', selected_options: [] });
    expect(s.chosen('U0ALICE', container)).toHaveProperty('q');
    s.updateMessage('C0GENERAL', m.ts, { blocks: [{ type: 'section', block_id: 'done', text: { type: 'mrkdwn', text: 'answered' } }] });
    expect(s.chosen('U0ALICE', container)).toEqual({});
  });

  it('turns UI choices into wire state and refuses ones the element does not offer', () => {
    const select = { type: 'static_select', action_id: 'a', options: [{ text: { type: 'plain_text', text: 'One' }, value: '1' }] };
    expect(stateFromChoice(select, { selectedOption: '1' })).toEqual({ type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'One' }, value: '1' } });
    expect(() => stateFromChoice(select, { selectedOption: '2' })).toThrow(ChoiceError);
    expect(stateFromChoice({ type: 'number_input', action_id: 'n' }, { value: '' })).toEqual({ type: 'number_input', value: null });
    expect(() => stateFromChoice({ type: 'number_input', action_id: 'n' }, { value: 'ten' })).toThrow(ChoiceError);
  });
});

describe('what people type', () => {
  it('becomes Slack text: escaped, with mentions, groups, channels and links', () => {
    const m = typedMessage('@approvals refund <order> & ping @bob @finance in #general: https://example.com/a?b=1&c=2. mail me@example.com');
    expect(m.mentionsBot).toBe(true);
    expect(m.text).toBe('<@U0BOT> refund &lt;order&gt; &amp; ping <@U0BOB> <!subteam^S0FINANCE> in <#C0GENERAL>: <https://example.com/a?b=1&amp;c=2>. mail me@example.com');
    expect(typedMessage('no mention of @nobody here').text).toBe('no mention of @nobody here');
    expect(typedMessage('just text').mentionsBot).toBe(false);
  });
});

describe('sandbox state file', () => {
  it('saves messages after changes and reads them back; an unreadable file means an empty workspace', () => {
    const dir = tempDir('sandbox-state-');
    try {
      const path = join(dir, 'nested', 'sandbox.json');
      const s = store();
      const saver = persistMessages(s, path);
      const root = s.addMessage({ channel: 'C0GENERAL', text: 'kept', user: 'U0ALICE' });
      s.addMessage({ channel: 'C0GENERAL', text: 'reply', user: 'U0BOB', thread_ts: root.ts });
      saver.stop();
      const loaded = loadMessages(path);
      expect(loaded.map((m) => m.text)).toEqual(['kept', 'reply']);
      const again = store(() => 0);
      again.restore(loaded);
      expect(again.message('C0GENERAL', root.ts)).toMatchObject({ reply_count: 1 });
      expect(Number(again.nextTs())).toBeGreaterThan(Number(loaded[1]!.ts));

      writeFileSync(path, '{"version":1,"messages":"nope"}');
      expect(loadMessages(path)).toEqual([]);
      expect(loadMessages(join(dir, 'missing.json'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
