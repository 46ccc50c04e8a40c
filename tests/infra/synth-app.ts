/**
 * The CDK app of cdk.json (infra/cdk/app.ts) as `cdk synth --app` runs it in
 * tests/infra/deploy-guide.test.ts, but without bundling the functions: the CLI's context
 * (CDK_CONTEXT_JSON, or the file it overflows to) gets `aws:cdk:bundling-stacks: []`, as
 * tests/infra/support.ts's testApp does. The bundles are proven by tests/infra/bundling.test.ts;
 * bundling sixty functions here would take minutes on a busy machine.
 */
import { readFileSync } from 'node:fs';

const overflow = process.env.CONTEXT_OVERFLOW_LOCATION_ENV;
const context = {
  ...(JSON.parse(process.env.CDK_CONTEXT_JSON ?? '{}') as Record<string, unknown>),
  ...(overflow ? (JSON.parse(readFileSync(overflow, 'utf8')) as Record<string, unknown>) : {}),
};
delete process.env.CONTEXT_OVERFLOW_LOCATION_ENV;
process.env.CDK_CONTEXT_JSON = JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] });
await import('#infra/cdk/app');
