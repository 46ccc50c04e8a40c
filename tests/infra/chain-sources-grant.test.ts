/**
 * The `chain-sources` grant (shared/http/routes.ts): the functions checking a reported refund
 * transaction on chain (shared/watchers/refund-check.ts) read the chain sources' node URLs from
 * SSM as the watchers do, every configured source's; no other route function may.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chainSourceParameters, watcherKey } from '#infra/cdk/constructs/chain-watchers';
import { CryptoPayStack, functionsGranted } from '#infra/cdk/stack';
import { deployConfig, EVERY_SOURCE_SETTINGS, serviceFunctions, ssmParametersOf, TEST_ENV, testApp, variablesOf } from './support.ts';

const { app, cleanup } = testApp({ bundle: false });
afterAll(cleanup);
const config = deployConfig({ ...EVERY_SOURCE_SETTINGS });
const stack = new CryptoPayStack(app, 'ChainSourcesGrant', { env: TEST_ENV, config });
const placed = serviceFunctions(stack);
const nodeParameters = config.chainSources.flatMap((source) => (source.urlParameter ? [source.urlParameter] : []));
const asArn = (name: string) => `:parameter${name}`;

describe('chain-sources grant', () => {
  it('is declared by exactly the two refund-txid routes', () => {
    expect(functionsGranted('chain-sources').sort()).toEqual(['portal-report-refund-txid', 'report-refund-txid']);
  });

  it("lets those functions read every chain source's node URL parameter, named as the watchers name it", () => {
    expect(nodeParameters.length).toBeGreaterThan(1);
    for (const folder of functionsGranted('chain-sources')) {
      const fn = placed.get(folder)!;
      expect(ssmParametersOf(fn).sort(), folder).toEqual(expect.arrayContaining(nodeParameters.map(asArn)));
      const variables = variablesOf(fn);
      for (const [variable, name] of Object.entries(chainSourceParameters(config.chainSources))) expect(variables[variable], `${folder} ${variable}`).toBe(name);
    }
  });

  it("gives them the same parameters a chain's watcher reads", () => {
    const btc = config.chainSources.find((source) => source.chain === 'BTC')!;
    const watcher = placed.get(watcherKey('BTC'))!;
    expect(ssmParametersOf(watcher)).toEqual([asArn(btc.urlParameter!)]);
    expect(ssmParametersOf(placed.get('report-refund-txid')!)).toContain(asArn(btc.urlParameter!));
  });

  it('gives no other route function a node URL', () => {
    const granted = new Set(functionsGranted('chain-sources'));
    for (const [key, fn] of placed) {
      if (granted.has(key) || key.startsWith('watch-chain-')) continue;
      const reads = ssmParametersOf(fn);
      for (const name of nodeParameters) expect(reads, key).not.toContain(asArn(name));
    }
  });
});
