import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { ServiceFunction } from '#infra/cdk/constructs/service-function';
import type { CryptoPayStack } from '#infra/cdk/stack';
import { type ContextLookup, type DeployConfig, readDeployConfig } from '#infra/cdk/config';
import { REPO_ROOT } from '#infra/cdk/paths';
import { CHAINS } from '#shared/chains/sources';

/** The feature flags `cdk synth` runs with, so tests synthesize what the CLI would. */
const CDK_CONTEXT = (JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

export interface TestApp {
  app: App;
  outdir: string;
  cleanup(): void;
}

/**
 * An App with the repository's CDK context writing to a temporary folder. Without `bundle`,
 * functions get placeholder code (`aws:cdk:bundling-stacks: []`): assertions on the template
 * do not need the bundles, and bundling every function would dominate the test time.
 *
 * With `validate`, synthesis runs CDK's built-in CloudFormation validation, as `cdk synth`
 * does (cdk.json's `validateAgainstDefaultRules` makes its findings errors: the synthesis
 * throws). It is about 1.5 CPU s a synthesis, and 2 more to start its engine in each process,
 * for templates the other syntheses of a configuration repeat: two syntheses validate, the
 * default configuration's (stack.test.ts) and the fullest (permissions.test.ts), and the real
 * CLI's in deploy-guide.test.ts; the others only assert on the template.
 */
export function testApp(options: { bundle: boolean; validate?: boolean }): TestApp {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  const app = new App({
    outdir,
    builtinCloudFormationValidation: options.validate ?? false,
    context: {
      ...CDK_CONTEXT,
      'aws:cdk:enable-asset-metadata': true,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
  });
  return { app, outdir, cleanup: () => rmSync(outdir, { recursive: true, force: true }) };
}

/** A deploy configuration from explicit settings only (never the test process's environment). */
export function deployConfig(env: Record<string, string> = {}, context: Record<string, unknown> = {}): DeployConfig {
  const lookup: ContextLookup = (key) => context[key];
  return readDeployConfig(lookup, env);
}

export type Resources = Record<string, { Type: string; Properties?: Record<string, unknown>; [key: string]: unknown }>;

export const resourcesOf = (template: Template, type: string): Resources => template.findResources(type) as Resources;

/** The logical id CloudFormation knows a construct's resource by. */
export function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  const element = construct.node.defaultChild;
  if (!element) throw new Error('construct has no default child');
  return stack.getLogicalId(element as Parameters<Stack['getLogicalId']>[0]);
}

export interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

export const actionsOf = (statement: PolicyStatement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

/** Every statement of the identity policies attached to the role with this logical id. */
export function statementsOfRole(template: Template, roleId: string): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
    const roles = (policy.Properties?.Roles ?? []) as { Ref?: string }[];
    if (!roles.some((role) => role.Ref === roleId)) continue;
    const document = policy.Properties?.PolicyDocument as { Statement: PolicyStatement[] };
    statements.push(...document.Statement);
  }
  const role = resourcesOf(template, 'AWS::IAM::Role')[roleId];
  for (const inline of (role?.Properties?.Policies ?? []) as { PolicyDocument: { Statement: PolicyStatement[] } }[]) {
    statements.push(...inline.PolicyDocument.Statement);
  }
  return statements;
}

/** A function with the stack it is in (the main one or the watchers' nested stack) and that stack's template. */
export interface PlacedFunction {
  key: string;
  fn: ServiceFunction;
  stack: Stack;
  template: Template;
}

/**
 * Every function of the service: the main stack's and the nested stacks' (route functions, watchers, email). A nested
 * stack's template is a file of its own in the assembly; Template.fromStack reads it.
 */
export function serviceFunctions(stack: CryptoPayStack, template: Template = Template.fromStack(stack)): Map<string, PlacedFunction> {
  const placed = new Map<string, PlacedFunction>();
  // The routes' functions are in their nested stack, the others in the main one.
  const routeTemplate = Template.fromStack(stack.routeFunctions);
  for (const [key, fn] of stack.functions) {
    const inRoutes = Stack.of(fn) === stack.routeFunctions;
    placed.set(key, { key, fn, stack: inRoutes ? stack.routeFunctions : stack, template: inRoutes ? routeTemplate : template });
  }
  if (stack.watchers) {
    const nested = Template.fromStack(stack.watchers);
    for (const [key, fn] of stack.watchers.functions) placed.set(key, { key, fn, stack: stack.watchers, template: nested });
  }
  if (stack.email) {
    const nested = Template.fromStack(stack.email);
    for (const [key, fn] of stack.email.functions) placed.set(key, { key, fn, stack: stack.email, template: nested });
  }
  return placed;
}

/** The environment variables of a placed function, as its template has them. */
export const variablesOf = ({ fn, stack, template }: PlacedFunction): Record<string, unknown> =>
  (resourcesOf(template, 'AWS::Lambda::Function')[logicalId(stack, fn.function)]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;

/** Every SSM parameter a placed function's role may read (`:parameter/...`). */
export const ssmParametersOf = ({ fn, stack, template }: PlacedFunction): string[] =>
  statementsOfRole(template, logicalId(stack, fn.role))
    .filter((statement) => actionsOf(statement).includes('ssm:GetParameter'))
    .flatMap((statement) => JSON.stringify(statement.Resource).match(/:parameter\/[^"]+/g) ?? []);

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0b1c2d3e-aaaa-bbbb-cccc-0123456789ab';

/** Deploy settings of every chain's node (by SSM name) and every indexed source: the largest deployment. */
export const EVERY_SOURCE_SETTINGS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.keys(CHAINS).map((chain) => [`${chain}_RPC_URL`, `/crypto-pay/test/${chain.toLowerCase()}-rpc`])),
  TRON_API_URL: 'https://api.trongrid.io',
  SOLANA_RPC_URL: 'https://solana.example/',
  TON_API_URL: 'https://toncenter.com/',
  STELLAR_HORIZON_URL: 'https://horizon.stellar.org/',
  LND_REST_URL: 'https://lnd.internal.example:8080/',
  LND_MACAROON_PARAMETER: '/crypto-pay/test/lnd-macaroon',
  LND_TLS_CERT_PARAMETER: '/crypto-pay/test/lnd-tls-cert',
  EOS_ACCOUNT: 'shoppay.a1',
  EOS_HISTORY_URL: 'https://eos.hyperion.example/',
};

/** Every other deploy setting that adds resources: the gateways, both custom domains, the alarm e-mail. */
export const EVERYTHING_ELSE_SETTINGS: Readonly<Record<string, string>> = {
  ALIPAY_CREDENTIALS_PARAMETER: '/crypto-pay/test/alipay',
  ALIGLOBAL_CREDENTIALS_PARAMETER: '/crypto-pay/test/aliglobal',
  WECHAT_CREDENTIALS_PARAMETER: '/crypto-pay/test/wechat',
  PAYMENT_PAGE_DOMAIN: 'pay.example.com',
  PAYMENT_PAGE_CERTIFICATE_ARN: CERTIFICATE,
  PORTAL_DOMAIN: 'portal.example.com',
  PORTAL_CERTIFICATE_ARN: CERTIFICATE,
  ALARM_EMAIL: 'oncall@example.com',
  EMAIL_DOMAIN: 'mail.example.com',
};
