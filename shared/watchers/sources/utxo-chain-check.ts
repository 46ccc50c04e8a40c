/**
 * Whether a UTXO node (Esplora or Bitcoin Core-style RPC) is on the configured chain: its
 * genesis block (Esplora `GET /block-height/0`, RPC `getblockhash 0`) and, for a chain that
 * shares its genesis with a fork (BTC and BCH), the block at a height after the fork. A node on
 * testnet, regtest or another coin is refused with a WrongChainError: the step fails, its health
 * says `wrong_chain`, and checkouts in its currency fail closed, as for an EVM node on another
 * chain id. A passed check holds for the process (a node does not change chains); a failed one
 * is asked again at the next step, so a fixed node is taken back without a restart.
 */
import { SourceError, WrongChainError } from '#shared/core/source-error';
import type { UtxoChainIdentity } from '#shared/payments/utxo-config';

/** The hash of the node's block at a height, or undefined when it has none there (not synced that far). */
export type HashAt = (height: number) => Promise<string | undefined>;

export class UtxoChainCheck {
  private state: boolean | undefined;

  constructor(
    private readonly source: string,
    private readonly identity: UtxoChainIdentity,
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
    if (genesis !== this.identity.genesisHash) {
      this.state = false;
      throw new WrongChainError(this.source, `node's genesis block is ${genesis}${on}, expected ${this.identity.genesisHash}: it is on another network or coin`);
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
}
