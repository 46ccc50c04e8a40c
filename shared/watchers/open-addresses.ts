/**
 * A block chain's open addresses (store/watch-list.ts: every invoice address from checkout to
 * the end of its late window), kept by its watcher (one per container): read whole once, then
 * only what was added. Only transfers to them are looked up in the address index.
 */
import { openListConfig } from '#shared/core/config';
import { BLOCK_CHAIN_ITEMS, type ListedAddress, WatchList } from '#shared/store/watch-list';
import type { StepReport } from '#shared/watchers/block-report';
import type { Transfer } from '#shared/watchers/sources/port';

export class OpenAddresses {
  private readonly list: WatchList<ListedAddress>;

  constructor(
    chain: string,
    private readonly clock: () => Date,
  ) {
    this.list = new WatchList(BLOCK_CHAIN_ITEMS, chain, { fillMs: openListConfig().fillMs });
  }

  /**
   * The transfers that may pay an open invoice. Called after the transfers were fetched: every
   * address shown before they existed is on the list (watch-list.ts), so only transfers to
   * listed addresses need a lookup, once the list is complete (invoices shown before it began
   * are past their window); every one until then. The items read are counted in the report.
   */
  async listed(transfers: readonly Transfer[], report: Pick<StepReport, 'openRead'>): Promise<readonly Transfer[]> {
    if (transfers.length === 0) return [];
    report.openRead += (await this.list.refresh(this.clock())).items;
    const now = this.clock();
    return this.list.complete(now) ? transfers.filter((transfer) => this.list.has(transfer, now)) : transfers;
  }
}
