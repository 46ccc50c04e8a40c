import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString } from '#shared/core/env';
import { isSolanaAddress } from '#shared/payments/addresses/solana';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '#shared/payments/addresses/solana-token-account';
import { checkTokenOnNetwork, genesisSetting } from '#shared/chains/identity';
import { httpUrl } from '#shared/chains/sources';

/** Circle's USDC on Solana (6 decimals), of the SPL Token program. */
export const MAINNET_USDC_SOL_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** PayPal's PYUSD on Solana (6 decimals), a Token-2022 mint (Paxos, the issuer, lists it). */
export const MAINNET_PYUSD_MINT = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
/**
 * The genesis hashes (`getGenesisHash`) of Solana's public clusters: a node on devnet or testnet
 * answers another than mainnet-beta's. As the Solana Foundation's gill SDK lists them
 * (github.com/gillsdk/gill, packages/gill/src/core/const.ts, GENESIS_HASH), the same as the
 * Solana Explorer's cluster table (app/entities/chain-id/lib/const.ts, GENESIS_HASHES).
 */
export const SOLANA_GENESIS = {
  mainnetBeta: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
} as const;
export const MAINNET_GENESIS_HASH = SOLANA_GENESIS.mainnetBeta;

/** The clusters a node's genesis hash tells apart, named in a wrong-chain error. */
export const SOLANA_CLUSTERS: Readonly<Record<string, string>> = {
  [SOLANA_GENESIS.mainnetBeta]: 'mainnet-beta',
  [SOLANA_GENESIS.devnet]: 'devnet',
  [SOLANA_GENESIS.testnet]: 'testnet',
};

/**
 * USDC_SOL and PYUSD for live merchants: `SOLANA_RPC_URL` names a Solana JSON-RPC node the Solana
 * watcher reads; `USDC_SOL_MINT` and `PYUSD_MINT` the tokens (mainnet USDC, of the SPL Token
 * program, and mainnet PYUSD, of Token-2022, by default); `SOLANA_GENESIS_HASH` the cluster
 * the node must be on (mainnet-beta by default: a node on another cluster is refused, like an
 * EVM node on another chain id; mainnet-beta takes only Circle's mint, another cluster needs its
 * own, identity.ts); `PLATFORM_WALLET_SOL` the wallet live merchants without one of
 * their own are paid to. Without SOLANA_RPC_URL, live merchants' USDC_SOL fails closed.
 */
export function readSolanaConfig(env: Env) {
  const rpcUrl = optionalString(env, 'SOLANA_RPC_URL');
  if (rpcUrl !== undefined) httpUrl('SOLANA_RPC_URL', rpcUrl);
  const mint = optionalString(env, 'USDC_SOL_MINT') ?? MAINNET_USDC_SOL_MINT;
  // PYUSD came after USDC_SOL: a test cluster configured for USDC alone keeps running, without PYUSD.
  const genesisHash = genesisSetting(env, 'SOLANA_GENESIS_HASH', MAINNET_GENESIS_HASH, { valid: isSolanaAddress, what: 'a genesis hash (base58, 32 bytes)' });
  const pyusdMint = optionalString(env, 'PYUSD_MINT') ?? (genesisHash === MAINNET_GENESIS_HASH ? MAINNET_PYUSD_MINT : undefined);
  const platformWallet = optionalString(env, 'PLATFORM_WALLET_SOL');
  for (const [name, value] of [
    ['USDC_SOL_MINT', mint],
    ['PYUSD_MINT', pyusdMint],
    ['PLATFORM_WALLET_SOL', platformWallet],
  ] as const) {
    if (value !== undefined && !isSolanaAddress(value)) throw new ConfigError(`environment variable ${name} must be a Solana address (base58, 32 bytes), got "${value}"`);
  }
  for (const [currency, tokenVariable, token, mainnetToken] of [
    ['USDC_SOL', 'USDC_SOL_MINT', mint, MAINNET_USDC_SOL_MINT],
    ...(pyusdMint !== undefined ? [['PYUSD', 'PYUSD_MINT', pyusdMint, MAINNET_PYUSD_MINT] as const] : []),
  ] as const) {
    checkTokenOnNetwork({
      currency,
      tokenVariable,
      token,
      mainnetToken,
      genesisVariable: 'SOLANA_GENESIS_HASH',
      genesisHash,
      mainnetGenesis: MAINNET_GENESIS_HASH,
      ...(SOLANA_CLUSTERS[genesisHash] ? { networkName: SOLANA_CLUSTERS[genesisHash] } : {}),
    });
  }
  if (pyusdMint === mint) throw new ConfigError('PYUSD_MINT and USDC_SOL_MINT name the same mint');
  const tokens: readonly { currency: string; mint: string; decimals: number; program: string }[] = [
    { currency: 'USDC_SOL', mint, decimals: 6, program: TOKEN_PROGRAM_ID },
    ...(pyusdMint !== undefined ? [{ currency: 'PYUSD', mint: pyusdMint, decimals: 6, program: TOKEN_2022_PROGRAM_ID }] : []),
  ];
  return { rpcUrl, mint, pyusdMint, tokens, genesisHash, platformWallet, watched: rpcUrl !== undefined };
}

/** The Solana tokens this service takes, as pay currencies. */
const SOLANA_CURRENCIES = ['USDC_SOL', 'PYUSD'] as const;
export const isSolanaCurrency = (code: string): boolean => (SOLANA_CURRENCIES as readonly string[]).includes(code);

/** The mint and program of a Solana pay currency, from the settings. */
export function solanaToken(settings: Pick<ReturnType<typeof readSolanaConfig>, 'tokens'>, code: string): { mint: string; program: string; decimals: number } {
  const token = settings.tokens.find((candidate) => candidate.currency === code);
  if (!token) throw new RangeError(`${code} is not a Solana token here`);
  return token;
}

/** The process's Solana settings (the environment read once, by shared/core/config.ts). */
export const solanaSettings = section(readSolanaConfig);
