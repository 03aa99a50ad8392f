/** Reading a published Home tab and clicking on it, as Slack delivers such a click. */
import { newTriggerId, SLACK_IDS, type SlackUserRef, type StoredView } from '../../src/simulator/index.js';

type Block = Record<string, any>;

/** All text of a view's blocks, joined by lines. */
export function viewText(view: { blocks: unknown[] } | undefined): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if ((o.type === 'plain_text' || o.type === 'mrkdwn') && typeof o.text === 'string') parts.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  walk(view?.blocks ?? []);
  return parts.join('\n');
}

/**
 * The block_actions payload Slack sends for a button on a person's Home tab: a view container, no
 * channel, no message. `team` is the app's workspace; `user.team_id` the clicker's own team.
 */
export function homeClickPayload(view: StoredView, user: string | SlackUserRef, button: Block, blockId: string) {
  const id = typeof user === 'string' ? user : user.id;
  const teamId = (typeof user === 'string' ? undefined : user.teamId) ?? SLACK_IDS.teamId;
  return {
    type: 'block_actions',
    user: { id, username: id.toLowerCase(), name: id.toLowerCase(), team_id: teamId },
    api_app_id: SLACK_IDS.appId,
    token: 'verification-token',
    container: { type: 'view', view_id: view.id },
    trigger_id: newTriggerId(),
    team: { id: SLACK_IDS.teamId, domain: SLACK_IDS.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    view,
    state: { values: {} },
    actions: [{ action_id: button.action_id, block_id: blockId, text: button.text, value: button.value, style: button.style, type: 'button', action_ts: '1726133800.000100' }],
  };
}
