import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { JsonSchemaValidator } from '../helpers/json-schema.js';

const root = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

const schema = JSON.parse(readFileSync(root('test/fixtures/slack/manifest.schema.json'), 'utf8')) as Record<string, unknown>;
const validator = new JsonSchemaValidator(schema);

interface Manifest {
  display_information: { name: string };
  features: { bot_user: { display_name: string; always_online: boolean }; app_home: { messages_tab_enabled: boolean } };
  oauth_config: { scopes: { bot: string[]; user?: string[] } };
  settings: {
    event_subscriptions: { request_url?: string; bot_events: string[]; user_events?: string[] };
    interactivity: { is_enabled: boolean; request_url?: string };
    socket_mode_enabled: boolean;
    token_rotation_enabled: boolean;
  };
}

const loadManifest = (): Manifest => parse(readFileSync(root('manifest.yml'), 'utf8')) as Manifest;

/** Every scope the bot's code needs, and no other: adding one must be a deliberate change here. */
const EXPECTED_BOT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'channels:history',
  'chat:write',
  'commands',
  'groups:history',
  'groups:read',
  'im:history',
  'im:write',
  'reactions:write',
  'usergroups:read',
  'users:read',
];
const EXPECTED_BOT_EVENTS = ['app_home_opened', 'app_mention', 'message.channels', 'message.groups', 'message.im'];

/** Scope strings look like `resource:action` or `resource:action.qualifier`; `commands` (slash commands) has no action. */
const SCOPE_SHAPE = /^(?:commands|[a-z_]+(?:\.[a-z_]+)*:[a-z_]+(?:\.[a-z_]+)*)$/;

/**
 * Everything wrong with a manifest: schema violations, plus any scope or event that is not
 * exactly the expected set (the schema only limits a scope's length, so it cannot catch an
 * unknown or an unneeded scope).
 */
function manifestProblems(manifest: unknown): string[] {
  const problems = validator.validate(manifest).map((e) => `${e.path}: ${e.message}`);
  const m = manifest as Partial<Manifest>;
  const scopes = [...(m.oauth_config?.scopes.bot ?? [])].sort();
  if (JSON.stringify(scopes) !== JSON.stringify(EXPECTED_BOT_SCOPES)) problems.push(`bot scopes are ${scopes.join(', ')}`);
  if (m.oauth_config?.scopes.user !== undefined) problems.push('user scopes are requested');
  const events = [...(m.settings?.event_subscriptions.bot_events ?? [])].sort();
  if (JSON.stringify(events) !== JSON.stringify(EXPECTED_BOT_EVENTS)) problems.push(`bot events are ${events.join(', ')}`);
  if (m.settings?.event_subscriptions.user_events !== undefined) problems.push('user events are subscribed');
  return problems;
}

describe('manifest.yml', () => {
  it('validates against Slack’s manifest schema, with exactly the expected scopes and events', () => {
    expect(manifestProblems(loadManifest())).toEqual([]);
  });

  it('asks for exactly the scopes the bot uses', () => {
    const manifest = loadManifest();
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(EXPECTED_BOT_SCOPES);
    for (const scope of manifest.oauth_config.scopes.bot) expect(scope).toMatch(SCOPE_SHAPE);
  });

  it('subscribes to exactly the events the listeners handle', () => {
    const manifest = loadManifest();
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(EXPECTED_BOT_EVENTS);
  });

  it('runs in HTTP mode on /slack/events, with the bot user and DMs set up', () => {
    const manifest = loadManifest();
    expect(manifest.display_information.name).toBe('Approval Bot');
    expect(manifest.features.bot_user).toEqual({ display_name: 'Approval Bot', always_online: true });
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: 'https://example.com/slack/events' });
    expect(manifest.settings.event_subscriptions.request_url).toBe('https://example.com/slack/events');
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(manifest.settings.token_rotation_enabled).toBe(false);
  });

  it('documents the Socket Mode variant', () => {
    const text = readFileSync(root('manifest.yml'), 'utf8');
    expect(text).toMatch(/#.*socket_mode_enabled: true/);
    expect(text).toMatch(/#.*connections:write/);
    expect(text).toMatch(/#.*SLACK_APP_TOKEN/);
  });
});

describe('the manifest check is not a no-op', () => {
  it('rejects a manifest without display_information.name', () => {
    const manifest = loadManifest() as unknown as { display_information: Record<string, unknown> };
    delete manifest.display_information.name;
    expect(validator.validate(manifest)).toContainEqual({
      path: '$.display_information',
      message: "must have required property 'name'",
    });
  });

  it('rejects unknown keys, wrong types, over-long names and non-http request URLs', () => {
    const manifest = loadManifest() as unknown as Record<string, Record<string, unknown>>;
    manifest.settings!.interactivity = { is_enabled: 'yes', request_url: 'ftp://example.com' };
    manifest.display_information!.name = 'x'.repeat(36);
    manifest.features!.bot_user = { display_name: 'Approval Bot', allways_online: true };
    const messages = validator.validate(manifest).map((e) => `${e.path}: ${e.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        '$.settings.interactivity.is_enabled: must be boolean',
        expect.stringMatching(/^\$\.settings\.interactivity\.request_url: must match pattern/),
        '$.display_information.name: must NOT have more than 35 characters',
        '$.features.bot_user: must NOT have additional properties: allways_online',
      ]),
    );
  });

  it('rejects duplicate events and a malformed scope', () => {
    const manifest = loadManifest();
    manifest.settings.event_subscriptions.bot_events.push('app_mention');
    manifest.oauth_config.scopes.bot.push('x'.repeat(51));
    const messages = validator.validate(manifest).map((e) => `${e.path}: ${e.message}`);
    expect(messages).toContainEqual(expect.stringMatching(/^\$\.settings\.event_subscriptions\.bot_events: must NOT have duplicate items \(items ## \d+ and \d+ are identical\)$/));
    expect(messages).toContain(`$.oauth_config.scopes.bot[${manifest.oauth_config.scopes.bot.length - 1}]: must NOT have more than 50 characters`);
  });

  it('rejects an unknown scope, an unneeded scope, user scopes and an extra event', () => {
    const unknown = loadManifest();
    unknown.oauth_config.scopes.bot[0] = 'chat:writ';
    expect(manifestProblems(unknown)).toEqual([expect.stringMatching(/^bot scopes are .*chat:writ/)]);

    const extra = loadManifest();
    extra.oauth_config.scopes.bot.push('users:read');
    expect(manifestProblems(extra)).toEqual([expect.stringMatching(/users:read/)]);

    const user = loadManifest();
    user.oauth_config.scopes.user = ['search:read'];
    expect(manifestProblems(user)).toEqual(['user scopes are requested']);

    const event = loadManifest();
    event.settings.event_subscriptions.bot_events.push('reaction_added');
    expect(manifestProblems(event)).toEqual([expect.stringMatching(/reaction_added/)]);
  });

  it('rejects a manifest without display_information.name through the full check', () => {
    const manifest = loadManifest() as unknown as { display_information: Record<string, unknown> };
    delete manifest.display_information.name;
    expect(manifestProblems(manifest)).toEqual(["$.display_information: must have required property 'name'"]);
  });

  it('refuses a schema with a keyword it does not know or a $ref it cannot resolve', () => {
    expect(() => new JsonSchemaValidator({ type: 'object', properties: { a: { minimun: 1 } } })).toThrow(/minimun/);
    expect(() => new JsonSchemaValidator({ $ref: '#/definitions/missing' })).toThrow(/missing/);
  });

  it('names where each error is, down to array items', () => {
    const v = new JsonSchemaValidator({
      type: 'object',
      additionalProperties: false,
      properties: { list: { type: 'array', items: { type: 'object', properties: { 'a/b': { type: 'string' } } } } },
    });
    expect(v.validate({ list: [{ 'a/b': 'ok' }] })).toEqual([]);
    expect(v.validate({ list: [{}, { 'a/b': 1 }], other: 1 })).toEqual([
      { path: '$', message: 'must NOT have additional properties: other' },
      { path: '$.list[1].a/b', message: 'must be string' },
    ]);
  });
});
