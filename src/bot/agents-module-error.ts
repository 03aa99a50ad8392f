/**
 * AGENTS_MODULE could not be used: it failed to load, or it does not export
 * what the bot needs. The message names the file and what is wrong, so
 * start-up stops with something to fix.
 */
export class AgentsModuleError extends Error {
  readonly code = 'AGENTS_MODULE_INVALID' as const;
  constructor(
    readonly file: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`AGENTS_MODULE ${file}: ${problem}`, options);
    this.name = 'AgentsModuleError';
  }
}
