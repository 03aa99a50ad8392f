/**
 * A slash command as Slack posts it to the app's request URL: a flat form (not `payload=`), with
 * a response_url and a trigger_id. Bolt's `app.command('/approvals', …)` receives it.
 */
import { SLACK_IDS, VERIFICATION_TOKEN } from './ids.js';
import { newTriggerId, randomId } from './random-ids.js';

export interface SlashCommandOptions {
  command: string;
  text?: string;
  user: string;
  userName?: string;
  channel: string;
  channelName?: string;
  /** Pass `simulator.responseUrl(…)` when the code under test calls `respond()`, so nothing leaves loopback. */
  responseUrl?: string;
  triggerId?: string;
  /** The workspace the command was typed in (default: the simulated workspace); another is a Slack Connect partner. */
  teamId?: string;
  /** Set on Enterprise Grid: the organisation it was typed in. */
  enterpriseId?: string;
}

/** The fields of a slash command, in Slack's order. */
export function slashCommandFields(o: SlashCommandOptions): Record<string, string> {
  return {
    token: VERIFICATION_TOKEN,
    team_id: o.teamId ?? SLACK_IDS.teamId,
    ...(o.enterpriseId ? { enterprise_id: o.enterpriseId } : {}),
    team_domain: SLACK_IDS.teamDomain,
    channel_id: o.channel,
    channel_name: o.channelName ?? (o.channel.startsWith('D') ? 'directmessage' : o.channel.toLowerCase()),
    user_id: o.user,
    user_name: o.userName ?? o.user.toLowerCase(),
    command: o.command,
    text: o.text ?? '',
    api_app_id: SLACK_IDS.appId,
    is_enterprise_install: 'false',
    response_url: o.responseUrl ?? `https://hooks.slack.com/commands/${SLACK_IDS.teamId}/${randomId('', 13, '0123456789')}/${randomId('', 24)}`,
    trigger_id: o.triggerId ?? newTriggerId(),
  };
}

/** The raw form body Slack sends for a slash command. */
export function slashCommandBody(o: SlashCommandOptions): string {
  return new URLSearchParams(slashCommandFields(o)).toString();
}
