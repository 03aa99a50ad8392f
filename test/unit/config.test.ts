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
    expect(config.timings).toEqual({ runLeaseMs: 60_000, sweepIntervalMs: 30_000, cardRepairAfterMs: 60_000 });
    expect(config.maxConcurrentRuns).toBe(32);
    expect(parseConfig({ MAX_CONCURRENT_RUNS: '4' }).maxConcurrentRuns).toBe(4);
    expect(parseConfig({ RUN_LEASE_MS: '5000', SWEEP_INTERVAL_MS: '1000', CARD_REPAIR_AFTER_MS: '2000' }).timings).toEqual({
      runLeaseMs: 5_000,
      sweepIntervalMs: 1_000,
      cardRepairAfterMs: 2_000,
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ MODEL: 'gpt-5' }, 'MODEL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LOG_FORMAT: 'fancy' }, 'LOG_FORMAT'],
    [{ SHUTDOWN_TIMEOUT_MS: '10s' }, 'SHUTDOWN_TIMEOUT_MS'],
    [{ SHUTDOWN_TIMEOUT_MS: '50' }, 'SHUTDOWN_TIMEOUT_MS'],
    [{ DATABASE_PREPARED_STATEMENTS: 'no' }, 'DATABASE_PREPARED_STATEMENTS'],
    [{ SLACK_BOT_TOKEN: 'abc' }, 'SLACK_BOT_TOKEN'],
    [{ SLACK_APP_TOKEN: 'xoxb-1', SLACK_BOT_TOKEN: 'xoxb-1' }, 'SLACK_APP_TOKEN'],
    [{ SLACK_API_URL: 'not a url' }, 'SLACK_API_URL'],
    [{ SLACK_BOT_TOKEN: 'xoxb-1' }, 'SLACK_SIGNING_SECRET'],
    [{ SLACK_SIGNING_SECRET: 'abc' }, 'SLACK_BOT_TOKEN'],
    [{ RUN_LEASE_MS: 'a minute' }, 'RUN_LEASE_MS'],
    [{ RUN_LEASE_MS: '10' }, 'RUN_LEASE_MS'],
    [{ SWEEP_INTERVAL_MS: '1.5' }, 'SWEEP_INTERVAL_MS'],
    [{ MAX_CONCURRENT_RUNS: '0' }, 'MAX_CONCURRENT_RUNS'],
    [{ MAX_CONCURRENT_RUNS: 'many' }, 'MAX_CONCURRENT_RUNS'],
    [{ CARD_REPAIR_AFTER_MS: '-1' }, 'CARD_REPAIR_AFTER_MS'],
    [{ CARD_REPAIR_AFTER_MS: '100000000' }, 'CARD_REPAIR_AFTER_MS'],
    [{ SLACK_ASSISTANT: 'yes' }, 'SLACK_ASSISTANT'],
    [{ SANDBOX_HOST: 'my laptop' }, 'SANDBOX_HOST'],
    [{ SANDBOX_HOST: 'http://0.0.0.0' }, 'SANDBOX_HOST'],
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

  it('SANDBOX_HOST is unset (the sandbox then listens on loopback) unless given a host or address', () => {
    expect(parseConfig({}).sandboxHost).toBeUndefined();
    expect(parseConfig({ SANDBOX_HOST: '0.0.0.0' }).sandboxHost).toBe('0.0.0.0');
    expect(parseConfig({ SANDBOX_HOST: '::' }).sandboxHost).toBe('::');
    expect(parseConfig({ SANDBOX_HOST: 'devbox.local' }).sandboxHost).toBe('devbox.local');
    // Nothing in the environment moves the bot's own port off loopback behind the sandbox: it is set there, not here.
    expect(parseConfig({ SANDBOX_HOST: '0.0.0.0', HTTP_HOST: '0.0.0.0' }).httpHost).toBeUndefined();
  });

  it('SLACK_ASSISTANT is off unless set to auto or on', () => {
    expect(parseConfig({}).slack.assistant).toBe('off');
    expect(parseConfig({ SLACK_ASSISTANT: 'auto' }).slack.assistant).toBe('auto');
    expect(parseConfig({ SLACK_ASSISTANT: 'on' }).slack.assistant).toBe('on');
  });

  it('production settings: log format, shutdown timeout, metrics token', () => {
    const defaults = parseConfig({});
    expect(defaults.logFormat).toBeUndefined();
    expect(defaults.shutdownTimeoutMs).toBe(10_000);
    expect(defaults.metricsToken).toBeUndefined();
    const set = parseConfig({ LOG_FORMAT: 'pretty', SHUTDOWN_TIMEOUT_MS: '25000', METRICS_TOKEN: ' scrape ' });
    expect(set).toMatchObject({ logFormat: 'pretty', shutdownTimeoutMs: 25_000, metricsToken: 'scrape' });
    expect(parseConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
  });

  it('accepts HTTP mode, Socket Mode and provider settings', () => {
    const http = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PORT: '8080', MODEL: 'openai/gpt-5-mini', OPENAI_API_KEY: 'sk-x' });
    expect(http.slack).toMatchObject({ botToken: 'xoxb-1', signingSecret: 's' });
    expect(http.port).toBe(8080);
    expect(http.providers.openai.apiKey).toBe('sk-x');
    const anthropic = parseConfig({ MODEL: 'openai.chat/gpt-4.1-mini', ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: 'https://gateway.example/v1' });
    expect(anthropic.model).toBe('openai.chat/gpt-4.1-mini');
    expect(anthropic.providers.anthropic).toEqual({ apiKey: 'sk-ant', baseURL: 'https://gateway.example/v1' });
    expect(() => parseConfig({ ANTHROPIC_BASE_URL: 'gateway' })).toThrow(/ANTHROPIC_BASE_URL must be an absolute URL/);
    const socket = parseConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' });
    expect(socket.slack.appToken).toBe('xapp-1');
  });
});
