import { LogLevel, type Logger } from '@slack/bolt';

/** A Bolt/WebClient logger that says nothing: tests refuse calls and close sockets on purpose and assert on the outcome instead. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};
