import { pino, type Logger, type DestinationStream } from 'pino';
import { build as prettyStream } from 'pino-pretty';

export type { Logger };

/**
 * Paths pino blanks out wherever they appear in a log object. Slack tokens,
 * signing secrets and model keys must never reach a log line, even when a
 * whole config or client options object is logged by mistake.
 */
const redactedPaths = [
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
  '*.*.authorization',
  '*.*.secret',
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

type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT when set; otherwise pretty for a person at a terminal and JSON lines for a log collector. */
export function logFormatFor(configured: LogFormat | undefined, stdoutIsTTY = Boolean(process.stdout.isTTY)): LogFormat {
  return configured ?? (stdoutIsTTY ? 'pretty' : 'json');
}

/**
 * The bot's logger: JSON lines, or with `format: 'pretty'` one readable line per entry (pino-pretty,
 * in-process and synchronous, so the last lines before an exit are not lost). Redaction happens
 * before formatting, so both formats show the same, secret-free, content.
 */
export function createLogger(
  options: { level?: string; name?: string; format?: LogFormat } = {},
  destination?: DestinationStream,
): Logger {
  const target =
    options.format === 'pretty'
      ? prettyStream({
          destination: destination ?? 1,
          sync: true,
          colorize: destination === undefined && Boolean(process.stdout.isTTY),
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,name',
          singleLine: true,
        })
      : destination;
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
    target,
  );
}

/** A logger that drops everything; the default for library use without one. */
export const silentLogger: Logger = pino({ level: 'silent' });
