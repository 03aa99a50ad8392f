import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

describe('parseConfig', () => {
  it('applies defaults and freezes the result', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({ port: 3000, dataDir: '.data', logLevel: 'info', databasePreparedStatements: true });
    expect(parseConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements).toBe(false);
    expect(config.databaseUrl).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.slack)).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ MODEL: 'gpt-5' }, 'MODEL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_PREPARED_STATEMENTS: 'no' }, 'DATABASE_PREPARED_STATEMENTS'],
    [{ SLACK_BOT_TOKEN: 'abc' }, 'SLACK_BOT_TOKEN'],
    [{ SLACK_APP_TOKEN: 'xoxb-1', SLACK_BOT_TOKEN: 'xoxb-1' }, 'SLACK_APP_TOKEN'],
    [{ SLACK_API_URL: 'not a url' }, 'SLACK_API_URL'],
    [{ SLACK_BOT_TOKEN: 'xoxb-1' }, 'SLACK_SIGNING_SECRET'],
    [{ SLACK_SIGNING_SECRET: 'abc' }, 'SLACK_BOT_TOKEN'],
  ])('rejects %j naming %s', (env, variable) => {
    let error: unknown;
    try {
      parseConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toContain(variable);
  });

  it('accepts HTTP mode, Socket Mode and provider settings', () => {
    const http = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PORT: '8080', MODEL: 'openai/gpt-5-mini', OPENAI_API_KEY: 'sk-x' });
    expect(http.slack).toMatchObject({ botToken: 'xoxb-1', signingSecret: 's' });
    expect(http.port).toBe(8080);
    expect(http.providers.openai.apiKey).toBe('sk-x');
    const socket = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' });
    expect(socket.slack.appToken).toBe('xapp-1');
  });
});
