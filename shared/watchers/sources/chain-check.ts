/**
 * Whether a source is on the configured chain: its genesis block (Esplora `GET /block-height/0`,
 * a Bitcoin Core-style node's `getblockhash 0`, TRON's `POST /wallet/getblockbynum {"num":0}`
 * `blockID`, Solana's `getGenesisHash`) and, for a chain that shares its genesis with a fork (BTC
 * and BCH), the block at a height after the fork. A source on a testnet, regtest, another
 * cluster or another coin is refused with a WrongChainError: the step fails, its health says
 * `wrong_chain`, and checkouts in its currencies fail closed, as for an EVM node on another chain
 * id. A passed check holds for the process (a node does not change chains), so it costs one
 * request per container, none per step; a failed one is asked again at the next step, so a
 * fixed source is taken back without a restart. Its errors name the source by its chain and
 * kind, never by its host, and the hashes expected and found (with the network's name where it
 * is a known one).
 */
import { SourceError, WrongChainError } from '#shared/core/source-error';
import type { ChainIdentity } from '#shared/chains/identity';

/** The hash of the source's block at a height, or undefined when it has none there (not synced that far). */
export type HashAt = (height: number) => Promise<string | undefined>;

export class ChainCheck {
  private state: boolean | undefined;

  /**
   * @param source what the errors call the source (`BTC Esplora`, `TRON API`): no host, no URL.
   * @param networks known genesis hashes and the network each is (`mainnet`, `Nile`), named in the error.
   */
  constructor(
    private readonly source: string,
    private readonly identity: ChainIdentity,
    private readonly networks: Readonly<Record<string, string>> = {},
  ) {}

  /** True once passed, false after a mismatch, undefined before the first answer. */
  get chainOk(): boolean | undefined {
    return this.state;
  }

  /** Passes, or throws WrongChainError (another chain) or SourceError (cannot tell yet). `network`: what the node says it is on. */
  async ensure(hashAt: HashAt, network?: string): Promise<void> {
    if (this.state === true) return;
    const on = network === undefined ? '' : ` (it says chain "${network}")`;
    const genesis = await hashAt(0);
    if (genesis === undefined) throw new SourceError(this.source, 'has no genesis block');
    const expected = this.identity.genesisHash;
    if (genesis !== expected) {
      this.state = false;
      const found = on || this.named(genesis);
      throw new WrongChainError(this.source, `node's genesis block is ${genesis}${found}, expected ${expected}${this.named(expected)}: it is on another network or coin`);
    }
    const { checkpoint } = this.identity;
    if (checkpoint) {
      const hash = await hashAt(checkpoint.height);
      if (hash === undefined) throw new SourceError(this.source, `has no block ${checkpoint.height} yet: its chain cannot be told from a fork until it is synced past it`);
      if (hash !== checkpoint.hash) {
        this.state = false;
        throw new WrongChainError(this.source, `node's block ${checkpoint.height} is ${hash}${on}, expected ${checkpoint.hash}: it follows a fork that shares the genesis (BTC and BCH)`);
      }
    }
    this.state = true;
  }

  private named(hash: string): string {
    const name = this.networks[hash];
    return name === undefined ? '' : ` (${name})`;
  }
}
