/**
 * CloudFormation takes at most 500 resources per stack (AWS CloudFormation's quotas). The chain
 * watchers (about ten resources per source) are a nested stack of their own, so the main stack
 * does not grow with the networks. Built here with every setting that adds resources: every
 * network and indexed source, the gateways, custom domains, the alarm e-mail and both built web
 * apps (their deployments add a custom resource and its function). The counts are
 * printed (docs/deploy.md "Stack size" records them).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { CryptoPayStack } from '#infra/cdk/stack';
import { CHAINS } from '#shared/chains/sources';
import { ROUTES } from '#shared/http/routes';
import { deployConfig, EVERY_SOURCE_SETTINGS, EVERYTHING_ELSE_SETTINGS, TEST_ENV, testApp } from './support.ts';

const SOURCES = EVERY_SOURCE_SETTINGS;
/** The renewal queue and its dead-letter queue, each with its TLS-only policy, and the queue's event source mapping. */
const RENEWAL_QUEUE_RESOURCES = 5;
const REST = EVERYTHING_ELSE_SETTINGS;

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

// Stand-ins for web/dist and web/portal/dist (the page's index.html must carry the API URL's meta tag).
const web = mkdtempSync(join(tmpdir(), 'crypto-pay-web-'));
cleanups.push(() => rmSync(web, { recursive: true, force: true }));
for (const app of ['page', 'portal']) {
  mkdirSync(join(web, app));
  writeFileSync(join(web, app, 'index.html'), '<html><head><meta name="api-base-url" content=""></head><body></body></html>');
}

function build(id: string, env: Record<string, string>) {
  const made = testApp({ bundle: false });
  cleanups.push(made.cleanup);
  const stack = new CryptoPayStack(made.app, id, { env: TEST_ENV, config: deployConfig(env), paymentPageDir: join(web, 'page'), portalDir: join(web, 'portal') });
  return { app: made.app, stack };
}
const countOf = (stack: Stack): number => Object.keys(Template.fromStack(stack).toJSON().Resources as object).length;

const everything = build('Everything', { ...SOURCES, ...REST });
const oneChain = build('OneChain', { BTC_RPC_URL: SOURCES.BTC_RPC_URL!, ...REST });
const sources = everything.stack.watchers!.chains.length;
const counts = {
  sources,
  main: countOf(everything.stack),
  watchers: countOf(everything.stack.watchers!),
  routeFunctions: countOf(everything.stack.routeFunctions),
  mainWithOneSource: countOf(oneChain.stack),
  watchersWithOneSource: countOf(oneChain.stack.watchers!),
};
console.log(`CloudFormation resources with every network configured: ${JSON.stringify(counts)}`);

describe('stack size', () => {
  it('watches every chain and indexed source, and deploys both web apps', () => {
    expect(everything.stack.paymentPage.contentDeployed).toBe(true);
    expect(everything.stack.portal.contentDeployed).toBe(true);
    expect(everything.stack.watchers!.chains).toEqual([...Object.keys(CHAINS), 'LBTC', 'EOS', 'TRON', 'SOLANA', 'TON', 'STELLAR']);
  });

  it("keeps both stacks under CloudFormation's 500 resources with every network configured", () => {
    expect(counts.main).toBeLessThan(500);
    expect(counts.watchers).toBeLessThan(500);
    expect(counts.routeFunctions).toBeLessThan(500);
  });

  it('leaves the main stack room for 15 more route functions, each adding its route, integration and permission here and its function, role, policy and logs to the nested stack', () => {
    const routeFunctions = [...everything.stack.functions.values()].filter((fn) => Stack.of(fn) === everything.stack.routeFunctions).length;
    // The route functions, and the renewal function beside its queues.
    expect(routeFunctions).toBe(new Set(ROUTES.filter((route) => !route.stream).map((route) => route.fn)).size + 1);
    // Each function four resources, and the renewals' queues with theirs (RENEWAL_QUEUE_RESOURCES); their alarms stay in the main stack.
    expect(counts.routeFunctions).toBe(4 * routeFunctions + RENEWAL_QUEUE_RESOURCES);
    // 50 resources of margin under CloudFormation's 500 besides (recurring billing's routes took the earlier margin of 100).
    expect(counts.main + 15 * 3).toBeLessThan(450);
    expect(counts.routeFunctions + 15 * 4).toBeLessThan(500);
  });

  it('keeps the watchers out of the main stack: it has the same resources with one source as with all', () => {
    expect(counts.main).toBe(counts.mainWithOneSource);
    // The route functions', the watchers' and email's nested stacks.
    expect(Object.keys(Template.fromStack(everything.stack).findResources('AWS::CloudFormation::Stack'))).toHaveLength(3);
    expect(Template.fromStack(everything.stack).findResources('AWS::Events::Rule', { Properties: { Description: 'Runs watch-chain-btc every 1 minute' } })).toEqual({});
  });

  it("grows the watchers' stack by the same resources per source (function, role, policy, logs, schedule, permission, invoke config), with two alarms for them all, beside the waker's six and the step timer's eight", () => {
    // One source-health alarm for every source, and the unmatched-payment alarm with any source but LBTC alone.
    // wake-watchers: function, role, policy, logs, its stream mapping, its errors alarm.
    // The step timer: its queue and queue policy (TLS only), tick-watchers' function, role, policy, logs, queue mapping, errors alarm.
    const perSource = 7;
    const waker = 6;
    const timer = 8;
    expect(counts.watchersWithOneSource).toBe(perSource + 2 + waker + timer);
    expect(counts.watchers).toBe(perSource * sources + 2 + waker + timer);
  });

  it('passes cdk-nag AwsSolutions in both stacks', () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: false }).validateScope(everything.app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings, findings.join('\n')).toEqual([]);
  });
});
