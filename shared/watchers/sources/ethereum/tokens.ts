/**
 * The ERC-20 tokens an EVM network's source reads, and the node's chain: `eth_chainId` and each
 * contract's `decimals()` read in one batch on first use. A node on another chain stops the
 * source; a token whose contract does not answer, or whose decimals are not those its currency
 * is booked in, is left out (its payment URIs would name amounts a factor of ten off) and asked
 * again a minute later, while the coin and the other tokens go on.
 */
import { WrongChainError } from '#shared/core/source-error';
import { currency as currencyInfo } from '#shared/domain/currencies';
import { DECIMALS_SELECTOR, fixedData, smallQuantity, word } from '#shared/watchers/sources/ethereum/codec';
import type { JsonRpcClient } from '#shared/watchers/sources/json-rpc';
import type { SourceHealthNote } from '#shared/watchers/sources/port';

/** An ERC-20 token the service is paid in: its pay currency and its contract. */
export interface TokenContract {
  /** USDT_ERC20, USDC_ERC20. */
  currency: string;
  /** The contract address (any case). */
  contract: string;
}

/** A configured token whose contract answered, with its decimals. */
export interface Token {
  currency: string;
  /** Lowercase, as logs carry it. */
  contract: string;
  decimals: number;
}

/** How long a token whose contract did not answer is left out before it is asked again. */
const TOKEN_RETRY_MS = 60_000;

export class TokenContracts {
  private ready: Promise<Token[]> | undefined;
  /** Tokens whose contract could not be read, with why; asked again after TOKEN_RETRY_MS. */
  private readonly failing = new Map<string, string>();
  private readAt = 0;
  private chainOk: boolean | undefined;

  constructor(
    private readonly rpc: JsonRpcClient,
    /** The chain the node must be on (eth_chainId). */
    private readonly chainId: number,
    private readonly configured: readonly TokenContract[],
  ) {
    for (const token of configured) {
      if (!fixedData(token.contract, 20)) throw new RangeError(`${token.currency} contract is not an address: ${token.contract}`);
    }
  }

  /**
   * The configured tokens that answer, with their decimals, read once; a token whose contract
   * does not answer (a node of another network without it) is left out, and asked again a
   * minute later, while ETH and the other tokens go on. A node on another chain stops it all.
   */
  get(): Promise<Token[]> {
    if (this.ready && this.failing.size > 0 && Date.now() - this.readAt > TOKEN_RETRY_MS) this.ready = undefined;
    this.ready ??= this.read().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** The chain check and the tokens failing on their own, for the source's health. */
  health(): SourceHealthNote {
    return { chainOk: this.chainOk, currencyErrors: Object.fromEntries(this.failing) };
  }

  private async read(): Promise<Token[]> {
    this.readAt = Date.now();
    const [chainId, ...answers] = await this.rpc.batch([
      { method: 'eth_chainId', params: [] },
      ...this.configured.map((token) => ({
        method: 'eth_call',
        params: [{ to: token.contract, data: DECIMALS_SELECTOR }, 'latest'],
      })),
    ]);
    if (smallQuantity(chainId) !== this.chainId) {
      this.chainOk = false;
      throw new WrongChainError(this.rpc.source, `node is on chain ${String(chainId)}, expected ${this.chainId}`);
    }
    this.chainOk = true;
    const tokens: Token[] = [];
    this.configured.forEach((token, i) => {
      const answer = answers[i];
      const value = typeof answer === 'string' ? word(answer.toLowerCase()) : undefined;
      const decimals = Number(value);
      const books = currencyInfo(token.currency).precision;
      if (value === undefined || value > 255n) {
        this.failing.set(token.currency, `${token.currency} contract ${token.contract} answered decimals() with ${JSON.stringify(answer).slice(0, 80)}`);
      } else if (decimals !== books) {
        // Exactly the currency's: its payment URIs name amounts in units of that many decimals.
        this.failing.set(token.currency, `${token.currency} contract has ${decimals} decimals; ${token.currency} amounts are booked to ${books}`);
      } else {
        this.failing.delete(token.currency);
        tokens.push({ currency: token.currency, contract: token.contract.toLowerCase(), decimals });
      }
    });
    return tokens;
  }
}
