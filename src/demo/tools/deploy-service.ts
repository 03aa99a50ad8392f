import { z } from 'zod';
import { createTool } from '../../agent/tool.js';
import { demoDb, type AnyKysely } from '../demo-tables.js';

const deployServiceInput = z.object({
  service: z.string().trim().min(1, 'service must not be empty').describe('The service to deploy, e.g. "api"'),
  environment: z.enum(['staging', 'production']),
  version: z.string().trim().min(1, 'version must not be empty').describe('The version or git ref, e.g. "v1.4.2"'),
});

type DeployServiceInput = z.infer<typeof deployServiceInput>;

const deployConfirmationPayload = z.object({ message: z.string() });
const deployConfirmationAnswer = z.object({ confirmed: z.boolean() });

type DeployServiceResult =
  | {
      deployed: true;
      deploymentId: number;
      service: string;
      environment: 'staging' | 'production';
      version: string;
      createdAt: string;
    }
  | { deployed: false; status: 'cancelled' | 'needs-confirmation'; message: string };

/**
 * Staging deploys at once; production first asks the person in the thread to confirm.
 * That is a suspension, not an approval: the requester answers for themselves
 * (with a button or a thread reply), where an approval needs an authorised approver.
 * The demo policy asks for both: someone other than the requester approves a
 * production deploy, then the confirmation picks the moment it goes out.
 */
export function createDeployServiceTool({ db }: { db: AnyKysely }) {
  const demo = demoDb(db);

  async function deploy(input: DeployServiceInput): Promise<DeployServiceResult> {
    const row = await demo
      .insertInto('demo_deployments')
      .values({ service: input.service, environment: input.environment, version: input.version, confirmed_by: null })
      .returning(['id', 'created_at'])
      .executeTakeFirstOrThrow();
    return {
      deployed: true,
      deploymentId: row.id,
      service: input.service,
      environment: input.environment,
      version: input.version,
      createdAt: new Date(row.created_at).toISOString(),
    };
  }

  return createTool({
    id: 'deploy_service',
    description:
      'Deploy a version of a service to staging or production. Staging deploys immediately; production asks the user to confirm first.',
    inputSchema: deployServiceInput,
    suspendSchema: deployConfirmationPayload,
    resumeSchema: deployConfirmationAnswer,
    describe: ({ service, environment, version }) => ({
      title: `Deploy ${service} ${version} to ${environment}`,
      fields: [
        { label: 'Service', value: service },
        { label: 'Environment', value: environment === 'production' ? 'Production' : 'Staging' },
        { label: 'Version', value: version },
      ],
      risk: environment === 'production' ? 'high' : 'low',
    }),
    execute: async (input, context): Promise<DeployServiceResult | undefined> => {
      if (input.environment === 'staging') return deploy(input);

      const agent = context.agent;
      if (!agent) {
        // Called from plain code there is no one to ask, and production must not go out unconfirmed.
        return {
          deployed: false,
          status: 'needs-confirmation',
          message: 'Production deploys need a confirmation, which can only be asked for inside an agent run.',
        };
      }
      if (agent.resumeData === undefined) {
        await agent.suspend({ message: `Deploy ${input.service} ${input.version} to production?` });
        // suspend() returns normally; stop here so the deploy waits for the answer.
        return undefined;
      }
      // The runtime has already checked the answer against resumeSchema; parsing again
      // keeps a production deploy from ever hinging on a loosely-typed value.
      const answer = deployConfirmationAnswer.parse(agent.resumeData);
      if (!answer.confirmed) return { deployed: false, status: 'cancelled', message: 'deployment cancelled' };
      return deploy(input);
    },
  });
}
