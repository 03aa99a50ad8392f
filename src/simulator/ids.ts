/**
 * The simulated workspace every part of the simulator agrees on: ids shaped like Slack's (T…, A…,
 * U…, B…) so the bot's own id checks treat them exactly as in a real workspace, and the tokens
 * the Web API accepts.
 */
export const SLACK_IDS = {
  teamId: 'T0G9PQBBK',
  teamDomain: 'acme-corp',
  teamName: 'Acme Corp',
  appId: 'A0APPID0001',
  botUserId: 'U0BOTUSER',
  botId: 'B0BOTID0001',
  botName: 'approvals',
} as const;

export const FAKE_BOT_TOKEN = 'xoxb-1111111111-2222222222222-FakeBotTokenForTests';
/** App-level token (Socket Mode); Slack accepts it for apps.connections.open only. */
export const FAKE_APP_TOKEN = 'xapp-1-A0APPID0001-3333333333333-0fa4e5c6b7d8e9f00112233445566778899aabbccddeeff0011223344556677';

/** Slack still sends this legacy field in envelopes and payloads; nothing should rely on it. */
export const VERIFICATION_TOKEN = 'verification_token_deprecated';
