import { contextKeyOf, type Setting, SETTINGS } from '#shared/core/settings';
import { currency, GATEWAY_CURRENCIES, PAY_CURRENCIES, requiredConfirmations } from '#shared/domain/currencies';
import { EVM_NETWORKS, evmCurrencies } from '#shared/domain/networks';
import { CHAINS } from '#shared/chains/sources';
import { MAX_TIP_AGE_DEFAULTS, maxTipAgeVariable } from '#shared/chains/tip-age';
import { UTXO_CHAINS } from '#shared/chains/utxo';

/**
 * The settings whose names are built from the chain, network, currency and gateway tables
 * (`<CHAIN>_RPC_URL`, `<CODE>_CONFIRMATIONS`, ...), declared as shared/core/settings.ts declares
 * the literal ones: a new network, token or gateway brings its settings, deployable, with it.
 * Their readers (shared/chains/: sources.ts, evm.ts, utxo.ts, tip-age.ts, confirmations.ts;
 * the gateways' credentials) build the same names.
 */
function families(): Record<string, Setting> {
  const families: Record<string, Setting> = {};
  const add = (name: string, declared: Setting) => (families[name] = declared);
  for (const [chain, { kinds }] of Object.entries(CHAINS)) {
    if (kinds.includes('esplora')) add(`${chain}_ESPLORA_URL`, { type: 'url', about: `https Esplora REST API watched for ${chain} payments`, aws: 'operator' });
    if (kinds.some((kind) => kind !== 'esplora')) {
      add(`${chain}_RPC_URL`, {
        type: 'url',
        about: `JSON-RPC URL of a ${chain} node (credentials in it); in AWS the name of the SSM SecureString holding it`,
        aws: 'parameter',
      });
    }
  }
  for (const chain of UTXO_CHAINS) {
    add(`${chain}_GENESIS_HASH`, { type: 'string', about: `genesis block hash the ${chain} source must answer (set for testnet)`, aws: 'operator', defaultText: "mainnet's" });
    add(`${chain}_CHECKPOINT`, {
      type: 'string',
      about: `\`<height>:<hash>\` the ${chain} source must also answer, or \`none\``,
      aws: 'operator',
      defaultText: chain === 'LTC' ? 'none' : "with mainnet's genesis: block 478559 (tells BTC and BCH apart), else none",
    });
  }
  for (const network of EVM_NETWORKS) {
    add(`${network.chain}_CHAIN_ID`, { type: 'positive', about: `${network.name} chain id of payment URIs and of the watched node`, aws: 'operator', default: network.chainId });
    for (const [code, contract] of Object.entries(network.tokens)) {
      add(`${code}_CONTRACT`, { type: 'string', about: `${code} token contract on ${network.name}`, aws: 'operator', default: contract });
    }
    add(`${network.chain}_BLOCK_RANGE`, {
      type: 'positive',
      about: `blocks the ${network.name} watcher reads in one eth_getLogs range: the provider plan's cap`,
      aws: 'operator',
      defaultText: '100',
    });
  }
  for (const code of PAY_CURRENCIES.filter((code) => currency(code).kind !== 'gateway')) {
    const network = EVM_NETWORKS.find((candidate) => evmCurrencies(candidate).includes(code));
    add(`${code}_CONFIRMATIONS`, {
      type: 'positive',
      about: `confirmations a payment in ${code} needs${network ? ` (${network.name} blocks)` : ''}`,
      aws: 'operator',
      default: requiredConfirmations(code),
    });
  }
  for (const [chain, seconds] of Object.entries(MAX_TIP_AGE_DEFAULTS)) {
    add(maxTipAgeVariable(chain), {
      type: 'nonNegative',
      about: `a source of ${chain} whose newest block is older is not caught up (0 turns the check off)`,
      aws: 'operator',
      defaultText: `${seconds} on mainnet, off elsewhere`,
    });
  }
  for (const code of GATEWAY_CURRENCIES) {
    add(`${code}_CREDENTIALS`, { type: 'secret', about: `${code}'s merchant credentials (JSON); unset, live ${code} checkouts fail closed`, aws: 'parameter' });
  }
  return families;
}

/** Every setting: the literal ones and the families, by variable name. */
export const ALL_SETTINGS: Readonly<Record<string, Setting>> = { ...SETTINGS, ...families() };

/** The CDK context key of each setting an operator gives the stack (`operator`, `parameter`, `deploy`), with its variable. */
export const deploySettings = (): [key: string, name: string, declared: Setting][] =>
  Object.entries(ALL_SETTINGS)
    .filter(([, declared]) => declared.aws === 'operator' || declared.aws === 'parameter' || declared.aws === 'deploy')
    .map(([name, declared]) => [contextKeyOf(name, declared), name, declared]);
