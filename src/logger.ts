import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/**
 * Paths pino blanks out wherever they appear in a log object. Slack tokens,
 * signing secrets and model keys must never reach a log line, even when a
 * whole config or client options object is logged by mistake.
 */
export const redactedPaths = [
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'apiKey',
  'password',
  'authorization',
  'secret',
  '*.token',
  '*.botToken',
  '*.appToken',
  '*.signingSecret',
  '*.apiKey',
  '*.password',
  '*.authorization',
  '*.secret',
  '*.*.token',
  '*.*.botToken',
  '*.*.appToken',
  '*.*.signingSecret',
  '*.*.apiKey',
  '*.*.password',
  'headers.authorization',
  'headers["x-slack-signature"]',
  'req.headers.authorization',
  'databaseUrl',
  '*.databaseUrl',
];

const tokenPattern = /\b(xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|sk-[A-Za-z0-9_-]{8,})/g;

/** Scrubs token-shaped substrings from free text (error messages can quote a token). */
export function scrubSecrets(text: string): string {
  return text.replace(tokenPattern, '[Redacted]');
}

export function createLogger(
  options: { level?: string; name?: string } = {},
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      name: options.name ?? 'approval-bot',
      level: options.level ?? 'info',
      redact: { paths: redactedPaths, censor: '[Redacted]' },
      formatters: {
        log(object) {
          if (typeof object.msg === 'string') object.msg = scrubSecrets(object.msg);
          return object;
        },
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
      serializers: {
        err: (err: unknown) => {
          const serialized = pino.stdSerializers.err(err as Error);
          if (serialized && typeof serialized.message === 'string') {
            serialized.message = scrubSecrets(serialized.message);
          }
          if (serialized && typeof serialized.stack === 'string') {
            serialized.stack = scrubSecrets(serialized.stack);
          }
          return serialized;
        },
      },
    },
    destination,
  );
}

/** A logger that drops everything; the default for library use without one. */
export const silentLogger: Logger = pino({ level: 'silent' });
