/**
 * EOS transfers to the receiving account from a Hyperion history API, as an
 * {@link IndexedSource} ordered by the chain's global_sequence (every action on an Antelope
 * chain has one, growing by one per action).
 *
 * `GET /v2/history/get_actions?account=<EOS_ACCOUNT>&filter=eosio.token:transfer&sort=asc
 * &after=<ISO time>&limit=<n>&checkLib=true` lists the account's token transfers oldest first
 * with the chain's last irreversible block (`lib`). Only irreversible transfers are reported
 * (irreversibility is EOS's confirmation: a reported transfer can never leave the chain), and
 * the cursor stops before the first reversible one, so it is reported once it is final.
 * Other tokens named EOS (another contract) and anything not `x.xxxx EOS` are skipped; a
 * transfer's memo names the invoice it pays. Transfers the account sends to another account are
 * reported `outgoing` (addressed to the recipient, with its memo): a merchant paying a buyer's
 * refund from the receiving account (store/refund-watches.ts); one that pays no refund is
 * passed over by the watcher.
 *
 * The cursor is `<global_sequence>@<block time>`: Hyperion filters by time, the sequence
 * decides what is new (several actions share a block's time).
 */
import { parseDecimal } from '#shared/domain/money';
import { SourceError } from '#shared/core/source-error';
import { DEFAULT_HTTP_POLICY, type HttpPolicy, requestText } from '#shared/watchers/sources/http';
import { type IndexedSource, type Transfer } from '#shared/watchers/sources/port';

export interface HyperionOptions {
  /** `https://eos.hyperion.example`, EOS_HISTORY_URL. */
  url: string;
  /** The receiving account, EOS_ACCOUNT. */
  account: string;
  /** Per request, ms (default 10 s). */
  timeoutMs?: number;
  /** Tries per request (transport errors, timeouts, 429 and 5xx). Default 3. */
  attempts?: number;
  backoffMs?: number;
  /** The first run (no cursor) starts this far back (default 1 day). */
  lookbackSeconds?: number;
  clock?: () => Date;
}

/** eosio.token's EOS: four decimals, the symbol EOS. */
const QUANTITY = /^(\d+\.\d{4}) EOS$/;
const ACCOUNT_NAME = /^[a-z1-5.]{1,12}$/;

interface Cursor {
  sequence: bigint;
  time: string;
}

function parseCursor(cursor: string): Cursor {
  const match = /^(\d{1,20})@(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z?)$/.exec(cursor);
  if (!match) throw new RangeError(`not a Hyperion cursor: ${cursor}`);
  return { sequence: BigInt(match[1]!), time: match[2]! };
}

export class HyperionTransfers implements IndexedSource {
  readonly chain = 'EOS';
  private readonly base: URL;
  private readonly policy: HttpPolicy;
  private readonly lookbackSeconds: number;
  private readonly clock: () => Date;

  constructor(private readonly options: HyperionOptions) {
    this.base = new URL(options.url);
    if (!ACCOUNT_NAME.test(options.account)) throw new RangeError(`not an EOS account name: ${options.account}`);
    this.policy = {
      timeoutMs: options.timeoutMs ?? DEFAULT_HTTP_POLICY.timeoutMs,
      attempts: options.attempts ?? DEFAULT_HTTP_POLICY.attempts,
      backoffMs: options.backoffMs ?? DEFAULT_HTTP_POLICY.backoffMs,
    };
    this.lookbackSeconds = options.lookbackSeconds ?? 86_400;
    this.clock = options.clock ?? (() => new Date());
  }

  async after(cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined }> {
    const from: Cursor = cursor === undefined ? { sequence: 0n, time: new Date(this.clock().getTime() - this.lookbackSeconds * 1000).toISOString() } : parseCursor(cursor);
    // Hyperion's `after` is by time; a block's actions share its time, so ask from 1 ms
    // before the cursor's and drop what the sequence says was seen.
    const after = new Date(Date.parse(from.time.endsWith('Z') ? from.time : `${from.time}Z`) - 1).toISOString();
    const query = new URLSearchParams({
      account: this.options.account,
      filter: 'eosio.token:transfer',
      sort: 'asc',
      after,
      limit: String(Math.max(1, Math.min(limit, 1000))),
      checkLib: 'true',
    });
    const answer = await this.get(`/v2/history/get_actions?${query}`);
    const lib = answer.lib;
    if (!Number.isSafeInteger(lib) || (lib as number) < 0) throw this.garbage('lib is not a block number');
    if (!Array.isArray(answer.actions)) throw this.garbage('actions is not a list');

    const transfers: Transfer[] = [];
    let next = from;
    for (const raw of answer.actions) {
      const action = this.action(raw);
      if (action.sequence <= from.sequence) continue;
      if (action.sequence <= next.sequence) throw this.garbage(`actions are not in global_sequence order at ${action.sequence}`);
      // Reversible: stop here, the next call starts again from this action.
      if (action.blockNum > (lib as number)) break;
      next = { sequence: action.sequence, time: action.time };
      if (action.transfer) transfers.push(action.transfer);
      if (transfers.length >= limit) break;
    }
    return { transfers, next: `${next.sequence}@${next.time}` };
  }

  /**
   * The EOS transfers of one transaction, between any accounts, each addressed to its recipient
   * (`GET /v2/history/get_transaction?id=`), with the chain's last irreversible block: a
   * merchant's reported refund (refund-check.ts). Undefined when Hyperion does not know the id.
   */
  async transaction(trxId: string): Promise<{ transfers: Transfer[]; lib: number } | undefined> {
    if (!/^[0-9a-f]{64}$/.test(trxId)) return undefined;
    const answer = await this.get(`/v2/history/get_transaction?${new URLSearchParams({ id: trxId })}`);
    if (answer.executed !== true) return undefined;
    const lib = answer.lib;
    if (!Number.isSafeInteger(lib) || (lib as number) < 0) throw this.garbage('lib is not a block number');
    if (!Array.isArray(answer.actions)) throw this.garbage('actions is not a list');
    const transfers: Transfer[] = [];
    for (const raw of answer.actions) {
      const action = this.action(raw, true);
      if (action.transfer?.txid !== undefined && action.transfer.txid !== trxId) throw this.garbage(`get_transaction ${trxId} answered an action of ${action.transfer.txid}`);
      if (action.transfer) transfers.push(action.transfer);
    }
    return { transfers, lib: lib as number };
  }

  /**
   * One action, checked; `transfer` only for an eosio.token EOS transfer to or from the account
   * (`any`: between any two accounts, addressed to its recipient).
   */
  private action(raw: unknown, any = false): { sequence: bigint; time: string; blockNum: number; transfer?: Transfer } {
    if (typeof raw !== 'object' || raw === null) throw this.garbage('an action is not an object');
    const a = raw as Record<string, unknown>;
    const sequence = a.global_sequence;
    if (!(typeof sequence === 'number' && Number.isSafeInteger(sequence)) && !(typeof sequence === 'string' && /^\d{1,20}$/.test(sequence))) {
      throw this.garbage('global_sequence is not a number');
    }
    const time = a['@timestamp'] ?? a.timestamp;
    if (typeof time !== 'string' || Number.isNaN(Date.parse(time.endsWith('Z') ? time : `${time}Z`))) throw this.garbage('an action has no timestamp');
    const blockNum = a.block_num;
    if (!Number.isSafeInteger(blockNum) || (blockNum as number) <= 0) throw this.garbage('block_num is not a block number');
    const trxId = a.trx_id;
    if (typeof trxId !== 'string' || !/^[0-9a-f]{64}$/.test(trxId)) throw this.garbage('trx_id is not a transaction id');
    const act = a.act as Record<string, unknown> | undefined;
    const data = act?.data as Record<string, unknown> | undefined;
    if (typeof act !== 'object' || act === null || typeof data !== 'object' || data === null) throw this.garbage('an action has no act.data');
    const base = { sequence: BigInt(sequence as string | number), time, blockNum: blockNum as number };
    if (act.account !== 'eosio.token' || act.name !== 'transfer') return base;
    // Incoming pays an invoice; outgoing (to another account) may pay a buyer's refund.
    const outgoing = (any || data.from === this.options.account) && data.to !== this.options.account;
    if (data.to !== this.options.account && !outgoing) return base;
    const quantity = typeof data.quantity === 'string' ? QUANTITY.exec(data.quantity) : null;
    if (!quantity) return base; // another token of eosio.token, or a malformed quantity: not a payment in EOS
    if (typeof data.memo !== 'string' || typeof data.from !== 'string') throw this.garbage('a transfer has no from or memo');
    if (outgoing && (typeof data.to !== 'string' || !ACCOUNT_NAME.test(data.to))) throw this.garbage('a transfer has no valid to');
    const blockId = typeof a.block_id === 'string' ? a.block_id : '';
    return {
      ...base,
      transfer: {
        key: String(sequence),
        txid: trxId,
        currency: 'EOS',
        address: outgoing ? (data.to as string) : this.options.account,
        ...(outgoing ? { outgoing: true as const } : {}),
        // Memos are typed by people: surrounding spaces are not part of the invoice's memo.
        memo: data.memo.trim(),
        amount: parseDecimal(quantity[1]!),
        block: { height: blockNum as number, hash: blockId },
        at: new Date(time.endsWith('Z') ? time : `${time}Z`),
      },
    };
  }

  private garbage(message: string): SourceError {
    return new SourceError(this.chain, message);
  }

  /** One get_actions request (core/retry.ts via requestText: transport errors, timeouts, 429 and 5xx tried again), its JSON object. */
  private async get(path: string): Promise<Record<string, unknown>> {
    const { status, body } = await requestText(this.chain, new URL(path, this.base).toString(), {}, this.policy);
    if (status !== 200) throw this.garbage(`get_actions answered HTTP ${status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw this.garbage('get_actions answered a body that is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw this.garbage('get_actions answer is not an object');
    return parsed as Record<string, unknown>;
  }
}
