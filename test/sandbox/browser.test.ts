/**
 * The README's quick start in a real browser (Debian's Chromium, driven by playwright-core;
 * nothing is downloaded): `npm start` with no Slack variables, and every demo request the README
 * lists walked through the UI the way a person would, more than once each, against the real bot;
 * the database is checked once it has stopped. The README's two screenshots are taken here
 * (docsScreenshot: into docs/ with UPDATE_SCREENSHOTS=1). Skipped where /usr/bin/chromium is missing.
 */
import { rmSync } from 'node:fs';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { galleryBlocks, galleryModal } from '../helpers/sandbox/gallery.js';
import { startHarness, type Harness } from '../helpers/sandbox/harness.js';
import { docsScreenshot, openSandboxPage, type SandboxPage } from '../helpers/sandbox-page.js';
import { newChromiumContext } from '../helpers/shared-chromium.js';
import { needing } from '../helpers/needs.js';
import { listeningAddresses, nonLoopbackAddresses, portTakenOn } from '../helpers/listening-addresses.js';
import { npmStart, stopProcessGroup } from '../helpers/sandbox/npm-start.js';
import { migratedDataDir } from '../helpers/migrated-data-dir.js';
import { openDatabase } from '../../src/db/database.js';
import { demoDb } from '../../src/demo/demo-tables.js';
import { DEMO_EXAMPLES } from '../../src/demo/start-demo.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A shortcode the page shows as text instead of its emoji, e.g. `:white_check_mark:`. */
const SHORTCODE = /:[a-z][a-z0-9_+-]*:/;

describe('the README’s quick start in Chromium: every demo request, more than once', needing('chromium', { timeout: 180_000 }), () => {
  const dataDir = tempDir('sandbox-npm-start-');
  let app: Awaited<ReturnType<typeof npmStart>> | undefined;
  let sandbox: SandboxPage;
  let page: Page;
  let actAs: SandboxPage['actAs'];
  let request: SandboxPage['request'];
  let botCard: SandboxPage['botCard'];
  /** The confirmation dialogs high-risk approvals opened, each accepted. */
  const dialogs: string[] = [];

  beforeAll(async () => {
    // DATABASE_URL is blanked so the embedded default is what runs. Its data directory is as an
    // earlier start left it (migrated-data-dir.ts): the demo still creates and seeds its tables at
    // this start, and a first start's initdb on an empty directory is fresh-clone's quick start's.
    await migratedDataDir(dataDir);
    app = await npmStart({ PORT: '0', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info', SANDBOX_HOST: undefined });
    expect(app.output()).toMatch(/built-in demo model/);
    sandbox = await openSandboxPage(app.url, 'U0ALICE');
    ({ page, actAs, request, botCard } = sandbox);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
  }, 120_000);

  afterAll(async () => {
    await sandbox?.close();
    await stopProcessGroup(app?.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Clicks `button` on `card` and waits for the card to say `outcome`. */
  async function click(card: Locator, button: string, outcome: string | RegExp) {
    await card.locator('button', { hasText: button }).first().click();
    await expect.poll(() => card.textContent()).toMatch(outcome);
  }

  /** The latest answer in `thread` that matches `text` (the bot's message that is no card). */
  async function answer(thread: Locator, text: RegExp): Promise<string> {
    const message = thread.locator('.msg-bot', { hasText: text }).last();
    await message.waitFor();
    return (await message.textContent()) ?? '';
  }

  it('listens on loopback only: the sandbox on PORT and the bot behind it, not on the machine’s other addresses', async () => {
    const ready = app!
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; botPort?: number })
      .find((l) => l.msg?.startsWith('Sandbox ready'));
    const botPort = ready!.botPort!;
    const uiPort = Number(new URL(app!.url).port);
    expect(listeningAddresses(uiPort)).toEqual(['127.0.0.1']);
    expect(listeningAddresses(botPort)).toEqual(['127.0.0.1']);
    // Nothing holds either port on the machine's own LAN address: another host could not reach /metrics there.
    for (const address of nonLoopbackAddresses()) {
      expect(await portTakenOn(address, botPort)).toBe(false);
      expect(await portTakenOn(address, uiPort)).toBe(false);
    }
  });

  it('offers the demo’s own requests to try', async () => {
    expect(await page.locator('#examples .example').allTextContents()).toEqual(DEMO_EXAMPLES.map((e) => `@approvals ${e}`));
  });

  it('delete record abc-123: the card, Approve confirmed, the answer; asked again, it says the record is already gone', async () => {
    const thread = await request('@approvals delete record abc-123');
    const card = botCard(thread, 'Delete record abc-123');
    await expect.poll(() => card.locator('button', { hasText: 'Approve' }).count()).toBe(1);
    expect(await card.locator('.bk-header').textContent()).toBe('Delete record abc-123');
    expect(await card.locator('.mention-user').first().textContent()).toBe('@alice');
    expect(await card.textContent()).toContain('High-risk action');
    expect(await card.textContent()).not.toContain('"id"');
    await docsScreenshot(page, 'sandbox-approval-card.png');

    // Deleting is high-risk in the demo policy: Approve asks to confirm first, naming the action.
    await click(card, 'Approve', /✅ Approved by @alice/);
    expect(dialogs.at(-1)).toContain('Delete record abc-123');
    expect(await answer(thread, /Deleted record abc-123/)).toContain('Deleted record abc-123.');
    expect(await card.locator('button').count()).toBe(0);
    expect(await thread.textContent()).not.toMatch(SHORTCODE);
    await docsScreenshot(page, 'sandbox-answered-thread.png');

    const again = await request('@approvals delete record abc-123');
    await click(botCard(again, 'Delete record abc-123'), 'Approve', 'Approved by @alice');
    expect(await answer(again, /already deleted/)).toMatch(/Record abc-123 was already deleted on \d{4}-\d\d-\d\d at \d\d:\d\d UTC, so nothing was deleted\./);
  });

  it('refund order 1042 for $25, three times: each waits for someone other than alice, and each is refunded', async () => {
    for (let time = 1; time <= 3; time++) {
      const thread = await request('@approvals refund order 1042 for $25');
      const card = botCard(thread, 'Refund $25.00 on order 1042');
      await card.locator('button', { hasText: 'Approve' }).click();
      const ephemeral = thread.locator('.msg-ephemeral').last();
      await ephemeral.waitFor();
      expect(await ephemeral.locator('.only-you').textContent()).toBe('Only visible to you');
      expect(await card.locator('button', { hasText: 'Approve' }).count()).toBe(1);

      await actAs('U0BOB');
      expect(await thread.locator('.msg-ephemeral').count()).toBe(0);
      await click(card, 'Approve', 'Approved by @bob');
      const said = await answer(thread, /Refunded \$25\.00 on order 1042/);
      expect(said).toContain(`$${(1_000_000 - 25 * time).toLocaleString('en-US')}.00 is left to refund`);
      await actAs('U0ALICE');
    }
  });

  it('a refund the order cannot cover fails after approval in words: amounts as money, the customer by name, no cents or user ids', async () => {
    const thread = await request('@approvals refund order 1044 for $200');
    const card = botCard(thread, 'Refund $200.00 on order 1044');
    await actAs('U0BOB');
    await click(card, 'Approve', 'Approved by @bob');
    const said = await answer(thread, /That failed/);
    expect(said).toContain('Order 1044 (Initech) has only $125.00 left to refund of its $125.00, so $200.00 was not refunded.');
    expect(said).not.toMatch(/cents|\bU0[A-Z]+\b/);
    await actAs('U0ALICE');
  });

  it('deploy api 2.3 to production, twice: alice may not approve her own; bob approves, then alice confirms and it deploys', async () => {
    for (let time = 1; time <= 2; time++) {
      const thread = await request('@approvals deploy api 2.3 to production');
      // By its header: the confirmation asked after the approval says "Deploy api 2.3 to production?" too.
      const card = thread.locator('.msg-bot', { has: page.locator('.bk-header', { hasText: /^Deploy api 2\.3 to production$/ }) }).last();
      await card.locator('button', { hasText: 'Approve' }).click();
      await thread.locator('.msg-ephemeral').last().waitFor();
      expect(await card.locator('button', { hasText: 'Approve' }).count()).toBe(1);

      await actAs('U0BOB');
      await click(card, 'Approve', 'Approved by @bob');
      expect(dialogs.at(-1)).toContain('Deploy api 2.3 to production');
      await actAs('U0ALICE');
      const confirm = botCard(thread, 'Input needed: deploy_service');
      await click(confirm, 'Yes', 'Answered Yes by @alice');
      expect(await answer(thread, /Deployed api 2\.3 to production/)).toContain('Deployed api 2.3 to production.');
      expect(await page.locator('.modal').count()).toBe(0);
    }
  });

  it('refund order 1042 for $1,500: over $1,000 it takes two people, bob and carol', async () => {
    const thread = await request('@approvals refund order 1042 for $1,500');
    const card = botCard(thread, 'Refund $1,500.00 on order 1042');
    await actAs('U0BOB');
    await click(card, 'Approve', /1 of 2|Approved by @bob/);
    await actAs('U0CAROL');
    await click(card, 'Approve', 'Approved by @bob and @carol');
    expect(await answer(thread, /Refunded \$1,500\.00/)).toContain('Refunded $1,500.00 on order 1042.');
    await actAs('U0ALICE');
  });

  it('deploy api 2.3 to staging deploys at once', async () => {
    const thread = await request('@approvals deploy api 2.3 to staging');
    expect(await answer(thread, /Deployed api 2\.3 to staging/)).toContain('Deployed api 2.3 to staging.');
  });

  it('any tool by name, as the help says: call <tool> with {json}, and <tool> key=value', async () => {
    for (const text of ['@approvals call lookup_record with {"id": "def-456"}', '@approvals lookup_record id=def-456']) {
      expect(await answer(await request(text), /Record def-456/)).toContain('Record def-456 is "Onboarding checklist draft", owned by bob.');
    }
  });

  it('look up record def-456, twice', async () => {
    for (let time = 1; time <= 2; time++) {
      const thread = await request('@approvals look up record def-456');
      expect(await answer(thread, /Record def-456/)).toContain('Record def-456 is "Onboarding checklist draft", owned by bob.');
    }
  });

  it('clean up records: a multi-select question with checkboxes and Submit, then one card for both deletions', async () => {
    const thread = await request('@approvals clean up records');
    const card = botCard(thread, 'Which records should I delete?');
    await card.locator('input[type=checkbox][value="1"]').check();
    await card.locator('input[type=checkbox][value="2"]').check();
    await card.locator('button', { hasText: 'Submit' }).click();
    await expect.poll(() => card.textContent()).toContain('Answered def-456, ghi-789 by @alice');
    // The two deletions are parallel calls of one step: one card for both.
    await expect.poll(() => thread.locator('.msg-bot', { hasText: '2 actions need approval' }).count()).toBe(1);
    expect(await thread.locator('.msg-bot .bk-header', { hasText: /^Delete record / }).count()).toBe(0);
  });

  it('delete record abc-123 and record def-456: several calls at once, on one card', async () => {
    const thread = await request('@approvals delete record abc-123 and record def-456');
    const card = botCard(thread, '2 actions need approval');
    await card.waitFor();
    expect(await card.textContent()).toContain('Waiting for 2 of 2 decisions');
  });

  it('help says what the demo model understands and lists its tools, each callable by name', async () => {
    const thread = await request('@approvals help');
    const said = await answer(thread, /built-in demo model/);
    expect(said).toContain('refund order 1042 for $25');
    expect(said).toContain('call <tool> with {"key": "value"}');
    for (const tool of ['lookup_record', 'delete_record', 'deploy_service', 'ask_user', 'agent-billing']) expect(said).toContain(tool);
  });

  it('shows no script errors along the way', () => {
    expect(sandbox.pageErrors).toEqual([]);
  });

  it('after npm start stops, the database holds what the UI showed', async () => {
    await stopProcessGroup(app?.child);
    const database = await openDatabase({ dataDir });
    try {
      const demo = demoDb(database.db);
      const record = await demo.selectFrom('demo_records').select('deleted_at').where('id', '=', 'abc-123').executeTakeFirstOrThrow();
      expect(record.deleted_at).not.toBeNull();
      const refunds = await demo.selectFrom('demo_refunds').select(['order_id', 'amount_cents']).orderBy('id').execute();
      expect(refunds).toEqual([...[1, 2, 3].map(() => ({ order_id: '1042', amount_cents: 2500 })), { order_id: '1042', amount_cents: 150_000 }]);
      const deployments = await demo.selectFrom('demo_deployments').select(['service', 'environment', 'version']).orderBy('id').execute();
      expect(deployments).toEqual([
        ...[1, 2].map(() => ({ service: 'api', environment: 'production', version: '2.3' })),
        { service: 'api', environment: 'staging', version: '2.3' },
      ]);
    } finally {
      await database.close();
    }
  });
});

describe('Block Kit in the sandbox UI', needing('chromium', { timeout: 60_000 }), () => {
  let h: Harness;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    h = await startHarness({ echoBotMessages: false });
    context = await newChromiumContext({ viewport: { width: 1280, height: 1000 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => void d.dismiss());
    await page.goto(`${h.sandbox.url}/?user=U0ALICE&channel=C0GENERAL`);
    await page.locator('#bot-status.ok').waitFor();
  });

  afterAll(async () => {
    await context?.close();
    await h?.close();
  });

  it('draws every block kind, shows unknown ones as JSON, and keeps the bot\'s text as text', async () => {
    await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'gallery', blocks: galleryBlocks as never });
    const message = page.locator('#messages .msg-bot').last();
    await message.locator('.bk-header', { hasText: 'Gallery' }).waitFor();
    const body = message.locator('.msg-body');
    expect(await body.locator('strong', { hasText: 'bold' }).count()).toBeGreaterThan(0);
    expect(await body.locator('em', { hasText: 'italic' }).count()).toBe(1);
    expect(await body.locator('s', { hasText: 'strike' }).count()).toBe(1);
    expect(await body.locator('.mention-user').allTextContents()).toEqual(['@bob', '@carol']);
    expect(await body.locator('.mention-usergroup').textContent()).toBe('@finance');
    expect(await body.locator('.bk-section pre').textContent()).toContain('<script>alert(1)</script>');
    expect(await body.locator('time.date').textContent()).toMatch(/^Sep 1[12], 2024/);
    expect(await body.locator('.bk-fields .bk-field').count()).toBe(2);
    expect(await body.locator('.bk-primary', { hasText: 'Go' }).count()).toBe(1);
    expect(await body.locator('.bk-danger', { hasText: 'Stop' }).count()).toBe(1);
    expect(await body.locator('.markdown h4').textContent()).toBe('Markdown block');
    expect(await body.locator('.bk-rich-text li').count()).toBe(2);
    expect(await body.locator('.bk-unknown pre').textContent()).toContain('"future_block"');
    expect(await body.locator('input[type=checkbox][value=runbook]').isChecked()).toBe(true);
    // Nothing the bot wrote became markup: no script, no injected image, no javascript: link.
    expect(await body.locator('script, img').count()).toBe(0);
    expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
  });

  it('sends picks from menus and clicks on buttons as block_actions', async () => {
    const message = page.locator('#messages .msg-bot', { hasText: 'Gallery' }).last();
    await message.locator('.bk-multi select').selectOption('g');
    const multi = await h.receiver.waitFor((r) => r.body?.actions?.[0]?.action_id === 'many');
    expect(multi.body.actions[0].selected_options.map((o: { value: string }) => o.value)).toEqual(['g']);
    await message.locator('.bk-chip', { hasText: 'Green' }).waitFor();
    await message.locator('select[data-action-id=one]').selectOption('b');
    await h.receiver.waitFor((r) => r.body?.actions?.[0]?.selected_option?.value === 'b');
    await message.locator('label', { hasText: 'Yes' }).locator('input').check();
    await h.receiver.waitFor((r) => r.body?.actions?.[0]?.action_id === 'radio');
    await message.locator('button', { hasText: 'Go' }).click();
    const go = await h.receiver.waitFor((r) => r.body?.actions?.[0]?.action_id === 'go');
    expect(go.signatureValid).toBe(true);
    expect(go.body.state.values.controls.many.selected_options.map((o: { value: string }) => o.value)).toEqual(['g']);
    expect(go.body.state.values.controls.one.selected_option.value).toBe('b');
  });

  it('fills and submits a modal, showing the bot\'s field errors until it accepts', async () => {
    h.receiver.respondWith((r) => (r.body.type === 'view_submission' && r.body.view.state.values.count.value.value === '13' ? { body: { response_action: 'errors', errors: { count: 'Not 13, please.' } } } : undefined));
    await h.client.views.open({ trigger_id: h.sandbox.store.issueTrigger('U0ALICE'), view: galleryModal as never });
    const modal = page.locator('.modal');
    await modal.waitFor();
    await modal.locator('.modal-submit').click();
    await expect.poll(() => modal.locator('.bk-error').count()).toBe(4);

    await modal.locator('[data-block-id=notes] textarea').fill('first line\nsecond line');
    await modal.locator('[data-block-id=count] input').fill('13');
    await modal.locator('[data-block-id=env] select').selectOption('1');
    await modal.locator('[data-block-id=confirm] label', { hasText: 'Yes' }).locator('input').check();
    await modal.locator('[data-block-id=checks] input').check();
    await modal.locator('.modal-submit').click();
    await expect.poll(() => modal.locator('.bk-error').allTextContents()).toEqual(['Not 13, please.']);
    expect(await modal.locator('[data-block-id=notes] textarea').inputValue()).toBe('first line\nsecond line');

    await modal.locator('[data-block-id=count] input').fill('12');
    await modal.locator('.modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    const submitted = h.receiver.received.filter((r) => r.body?.type === 'view_submission').at(-1)!;
    expect(submitted.body.view.state.values).toMatchObject({
      notes: { value: { type: 'plain_text_input', value: 'first line\nsecond line' } },
      count: { value: { type: 'number_input', value: '12' } },
      env: { value: { selected_option: { value: '1' } } },
      confirm: { value: { selected_option: { value: 'true' } } },
      checks: { value: { selected_options: [{ value: 'runbook' }] } },
    });
  });

  it('keeps the focus, and what is being typed, in a modal while the channel changes behind it', async () => {
    await h.client.views.open({ trigger_id: h.sandbox.store.issueTrigger('U0ALICE'), view: galleryModal as never });
    const modal = page.locator('.modal');
    await modal.waitFor();
    // The second input: a redraw would put the focus back on the first.
    const count = modal.locator('[data-block-id=count] input');
    await count.click();
    await page.keyboard.type('4');
    await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'meanwhile in the channel' });
    await page.locator('#messages .msg-bot', { hasText: 'meanwhile in the channel' }).waitFor();
    await page.keyboard.type('2');
    expect(await count.inputValue()).toBe('42');
    expect(await modal.locator('[data-block-id=notes] textarea').inputValue()).toBe('');
    await modal.locator('.modal-x').click();
    await modal.waitFor({ state: 'detached' });
  });

  it('shows an ephemeral only to its person, and a reaction live', async () => {
    const posted = await h.client.chat.postMessage({ channel: 'C0GENERAL', text: 'watch me' });
    await h.client.chat.postEphemeral({ channel: 'C0GENERAL', user: 'U0ALICE', text: 'just for alice' });
    await h.client.chat.postEphemeral({ channel: 'C0GENERAL', user: 'U0BOB', text: 'just for bob' });
    await page.locator('.msg-ephemeral', { hasText: 'just for alice' }).waitFor();
    expect(await page.locator('.msg-ephemeral', { hasText: 'just for bob' }).count()).toBe(0);
    await h.client.reactions.add({ channel: 'C0GENERAL', timestamp: posted.ts!, name: 'eyes' });
    await page.locator(`.msg[data-ts="${posted.ts}"] .reaction[data-reaction=eyes]`).waitFor();
    await h.client.chat.update({ channel: 'C0GENERAL', ts: posted.ts!, text: 'watched' });
    await page.locator(`.msg[data-ts="${posted.ts}"] .msg-edited`).waitFor();
    expect(await page.locator(`.msg[data-ts="${posted.ts}"] .msg-body`).textContent()).toBe('watched');
    expect(pageErrors).toEqual([]);
  });
});
