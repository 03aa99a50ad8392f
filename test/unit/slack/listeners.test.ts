import { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { ACTION_IDS, CALLBACK_IDS } from '../../../src/slack/kit/action-ids.js';
import { interactionRoutes } from '../../../src/slack/listeners.js';

const app = () => new App({ token: 'xoxb-1', signingSecret: 's', deferInitialization: true, tokenVerificationEnabled: false });
const unknown = { unknownAction: async () => {}, unknownView: async () => {}, malformedAction: async () => {}, malformedView: async () => {} };

describe('interactionRoutes', () => {
  it('registers one Bolt listener for all buttons and one for all modals', () => {
    const a = app();
    const routes = interactionRoutes(a, unknown);
    for (const id of Object.values(ACTION_IDS)) routes.action(id, async () => {});
    for (const id of Object.values(CALLBACK_IDS)) routes.view(id, async () => {});
    expect((a as unknown as { listeners: unknown[] }).listeners).toHaveLength(2);
  });

  it('refuses a second listener for the same id', () => {
    const routes = interactionRoutes(app(), unknown);
    routes.action(ACTION_IDS.approve, async () => {});
    expect(() => routes.action(ACTION_IDS.approve, async () => {})).toThrow(/two listeners.*approval\.approve/);
    routes.view(CALLBACK_IDS.declineModal, async () => {});
    expect(() => routes.view(CALLBACK_IDS.declineModal, async () => {})).toThrow(/two listeners/);
  });
});
