import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The command line cannot be used as given; `message` says why and ends with the usage text. */
export class UsageError extends Error {
  readonly code = 'usage';
}

type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/**
 * node:util `parseArgs`, strict, with `--help`/`-h` added: returns 'help' when it was asked for,
 * and turns an unknown flag, a missing value or a stray argument into a UsageError.
 */
export function parseCommandLine<T extends ParseArgsConfig>(argv: string[], config: T, usage: string): Parsed<T> | 'help' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  try {
    return parseArgs<T>({ ...config, args: argv, strict: true });
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(`${error.message}\n${usage}`);
    throw error;
  }
}

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * For a CLI's entry point: the parsed arguments, or the process ends, with the usage on stdout
 * and exit 0 for `--help`, or the error on stderr and exit 2 (a bad invocation) for a UsageError.
 */
export function argumentsOrExit<A>(parse: () => A | 'help', usage: string): A {
  let parsed: A | 'help';
  try {
    parsed = parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
  if (parsed === 'help') {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}
