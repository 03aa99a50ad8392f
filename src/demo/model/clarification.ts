import { demoRecords } from '../seed-demo-data.js';
import { formatAnswer, quote, usd } from './format.js';
import type { Intent } from './intent.js';
import { environmentOf, parseDeploy, versionFromAnswer } from './parse-deploy.js';
import { amountFromAnswer, orderFromAnswer } from './parse-refund.js';
import { unreachable } from '../../unreachable.js';

/** A question to ask before acting, and how its answer fills the request in. */
export interface Question {
  question: string;
  options?: Array<{ label: string; description?: string }>;
  selectionMode?: 'multi_select';
  fill(answer: unknown): Intent;
}

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

const recordOptions = () => demoRecords.map((r) => ({ label: r.id, description: r.title }));

/** The next thing to ask before the intent can be acted on, if anything. */
export function clarification(intent: Intent): Question | undefined {
  switch (intent.kind) {
    case 'lookup':
      if (intent.ids.length) return undefined;
      return {
        question: 'Which record should I look up?',
        options: recordOptions(),
        fill: (a) => (typeof a === 'string' && a.trim() ? { ...intent, ids: [a.trim()] } : unreadable('a record id', a)),
      };
    case 'delete':
      if (intent.ids.length) return undefined;
      if (intent.several) {
        return {
          question: 'Which records should I delete?',
          options: recordOptions(),
          selectionMode: 'multi_select',
          fill: (a) => {
            const ids = Array.isArray(a) ? a.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
            return ids.length ? { ...intent, ids: [...new Set(ids.map((v) => v.trim()))] } : unreadable('record ids', a);
          },
        };
      }
      return {
        question: 'Which record should I delete?',
        options: recordOptions(),
        fill: (a) => (typeof a === 'string' && a.trim() ? { ...intent, ids: [a.trim()] } : unreadable('a record id', a)),
      };
    case 'deploy':
      if (!intent.service) {
        return {
          question: 'Which service should I deploy?',
          fill: (a) => {
            const service = typeof a === 'string' ? parseDeploy(a).service : undefined;
            return service ? { ...intent, service } : unreadable('a service name', a);
          },
        };
      }
      if (!intent.environment) {
        return {
          question: `Which environment should I deploy ${intent.service} to?`,
          options: [{ label: 'staging' }, { label: 'production' }],
          fill: (a) => {
            const environment = typeof a === 'string' ? environmentOf(a.trim()) : undefined;
            return environment ? { ...intent, environment } : unreadable('an environment', a);
          },
        };
      }
      if (!intent.version) {
        return {
          question: `Which version of ${intent.service} should I deploy?`,
          fill: (a) => {
            const version = typeof a === 'string' ? versionFromAnswer(a) : undefined;
            return version ? { ...intent, version } : unreadable('a version', a);
          },
        };
      }
      return undefined;
    case 'refund':
      if (!intent.orderId) {
        return {
          question:
            intent.amountCents !== undefined
              ? `Which order should I refund ${usd(intent.amountCents)} on?`
              : 'Which order should I refund?',
          fill: (a) => {
            const orderId = typeof a === 'string' ? orderFromAnswer(a) : undefined;
            return orderId ? { ...intent, orderId } : unreadable('an order id', a);
          },
        };
      }
      if (intent.amountCents === undefined) {
        return {
          question: `How much should I refund on order ${intent.orderId}?`,
          fill: (a) => {
            const amountCents = typeof a === 'string' ? amountFromAnswer(a) : undefined;
            return amountCents ? { ...intent, amountCents } : unreadable('an amount', a);
          },
        };
      }
      return undefined;
    case 'regions':
      if (intent.regions) return undefined;
      return {
        question: 'Which regions should this apply to?',
        options: REGIONS.map((label) => ({ label })),
        selectionMode: 'multi_select',
        fill: (a) => {
          const regions = Array.isArray(a) ? a.filter((v): v is string => typeof v === 'string') : [];
          return regions.length ? { ...intent, regions } : unreadable('regions', a);
        },
      };
    case 'help':
    case 'problem':
    case 'answered':
      return undefined;
    default:
      return unreachable(intent, 'intent');
  }
}

/** An answer fills the slot of the question asked at that point, recognised by its exact wording. */
export function applyAnswer(intent: Intent, question: string, answer: unknown): Intent {
  const asked = clarification(intent);
  if (asked && asked.question === question) return asked.fill(answer);
  return { kind: 'answered', question, answer };
}

function unreadable(what: string, answer: unknown): Intent {
  return {
    kind: 'problem',
    text: `I could not read ${what} from ${quote(formatAnswer(answer))}, so I did nothing. Please ask again with it included.`,
  };
}
