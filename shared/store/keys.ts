import type { DeliverySubject } from '#shared/domain/delivery';

/**
 * Every key format of the single table, in one place. Attributes are generic (PK/SK and
 * GSI1/GSI2 pairs) so one table serves every entity; `type` names the entity of an item.
 *
 * | entity              | PK                              | SK           | GSI1 (merchant, newest first)     | GSI2 (merchant+status, newest first)        |
 * |---------------------|---------------------------------|--------------|-----------------------------------|---------------------------------------------|
 * | order               | ORDER#<order_id>                | ORDER        | MERCHANT#<uid> / <created>#<id>   | MERCHANT#<uid>#STATUS#<status> / <created>#<id> |
 * | invoice             | ORDER#<order_id>                | INVOICE#<invoice_id> |                           |                                             |
 * | merchant            | MERCHANT#<uid>                  | MERCHANT     |                                   |                                             |
 * | API token           | APITOKEN#<HMAC-SHA256 hex>      | APITOKEN     |                                   |                                             |
 * | API token listing   | MERCHANT#<uid>                  | TOKEN#<token_id> |                               |                                             |
 * | audit entry         | MERCHANT#<uid>                  | AUDIT#<at>#<id> |                                |                                             |
 * | merchant order id   | MOID#<uid>#<merchant_order_id>  | MOID         |                                   |                                             |
 * | counter             | COUNTER#<name>                  | COUNTER      |                                   |                                             |
 * | rate snapshot       | RATES#<source>                  | RATES        |                                   |                                             |
 * | address index       | ADDRESS#<currency>#<address>[#<memo>] | ADDRESS |                                   |                                             |
 * | refund payment claim | REFUNDPAY#<currency>#<payment key> | REFUNDPAY |                                 |                                             |
 * | callback delivery   | ORDER#<order_id> or SUB#<subscription_id> | DELIVERY#<version, 10 digits> |                  |                                             |
 * | idempotency record  | IDEMPOTENCY#<scope>#<key>       | IDEMPOTENCY  |                                   |                                             |
 * | checkout slots      | ORDER#<order_id>                | CHECKOUTS    |                                   |                                             |
 * | returned address    | ADDRPOOL#<counter name>         | <index, 12 digits> |                             |                                             |
 * | chain cursor        | CHAIN#<chain>                   | CURSOR       |                                   |                                             |
 * | request quota       | QUOTA#<M<uid> or P<address>>     | W#<window number> |                              |                                             |
 * | mail limit count    | QUOTA#E<window kind><mailbox hash, link id or uid> | W#<window number> |         |                                             |
 * | maturing payment    | CHAIN#<chain>                   | PAYMENT#<height, 12 digits>#<payment key> |      |                                             |
 * | unmatched payment   | CHAIN#<chain or source>         | UNMATCHED#<payment key> |                        |                                             |
 * | merchant's unmatched payment | MERCHANT#<uid>         | UNMATCHED#<seen at>#<payment key> |              |                                             |
 * | source health       | HEALTH                          | <source: BTC, ETH, LBTC, ...> |                  |                                             |
 * | watch demand        | CHAIN#<chain>                   | DEMAND       |                                   |                                             |
 * | watch lease         | CHAIN#<chain>                   | LEASE        |                                   |                                             |
 * | watched address     | CHAIN#<TRON or SOLANA>          | WATCH#<watch until>#<address> |                  |                                             |
 * | open address        | CHAIN#<block chain>             | OPEN#<written at>#<currency>#<address> |         |                                             |
 * | transaction index   | TXID#<txid>                     | ORDER#<order_id> |                                   |                                             |
 * | portal user         | USER#<user uuid>                | USER         | MERCHANT#<uid>#USERS / <created>#<id> |                                         |
 * | passkey             | PASSKEY#<credential id>         | PASSKEY      | USER#<user uuid>#PASSKEYS / <created> |                                         |
 * | invite              | INVITE#<SHA-256 of the token>   | INVITE       |                                   |                                             |
 * | portal session      | SESSION#<SHA-256 of the id>     | SESSION      |                                   |                                             |
 * | WebAuthn challenge  | CHALLENGE#<challenge>           | CHALLENGE    |                                   |                                             |
 * | recovery code       | RECOVERY#<SHA-256 of the code>  | RECOVERY     |                                   |                                             |
 * | email sent          | EMAIL#<event id>                | TO#<recipient> |                                 |                                             |
 * | suppressed address  | SUPPRESSED#<SHA-256 of the address> | SUPPRESSED |                                 |                                             |
 * | payments of a day   | DIGEST#<YYYY-MM-DD>             | <uid>        |                                   |                                             |
 * | payment link        | LINK#<link_id>                  | LINK         | MERCHANT#<uid>#LINKS / <created>#<id> |                                         |
 * | link visit (order)  | LINK#<link_id>                  | VISIT#<visit id, time-ordered> |                 |                                             |
 * | link unit hold      | LINK#<link_id>                  | HOLD#<visit id> |                                |                                             |
 * | refund              | ORDER#<order_id>                | REFUND#<refund_id> | MERCHANT#<uid>#REFUNDS / <created>#<id> (while not sent, oldest first) |          |
 * | refund link         | REFUNDLINK#<SHA-256 of the secret> | REFUNDLINK |                                   |                                             |
 * | subscription plan   | PLAN#<plan_id>                  | PLAN         | MERCHANT#<uid>#PLANS / <created>#<id> |                                         |
 * | subscription        | SUB#<subscription_id>           | SUB          | MERCHANT#<uid>#SUBS / <created>#<id> | MERCHANT#<uid>#SUBS#<status> / <created>#<id> |
 * | subscription period | SUB#<subscription_id>           | PERIOD#<n, 6 digits>#<attempt, 3 digits> |       |                                             |
 * | subscription search | MERCHANT#<uid>#SUBSEARCH#<lower-cased customer email or id> | <created>#<subscription_id> |  |                     |
 * | subscriber link     | SUBLINK#<SHA-256 of the secret> | SUBLINK      |                                   |                                             |
 * | subscriber link state | SUB#<subscription_id>         | SUBLINK      |                                   |                                             |
 * | subscriber mailbox  | SUBMAIL#<plan_id>#<SHA-256 of the address> | SUB#<subscription_id> |             |                                             |
 * | subscriber link request | SUBLINKREQ#<request id>     | SUBLINKREQ   |                                   |                                             |
 *
 * | order number        | NUMBER#<uid>                    | <n, 12 digits> |                                 |                                             |
 * | order numbering     | NUMBER#<uid>                    | CURSOR       |                                   |                                             |
 * | numbering run       | NUMBERING                       | CURSOR       |                                   |                                             |
 *
 * GSI3 is sparse and holds only what a sweeper must find: NEW orders (GSI3PK =
 * EXPIRY#<shard>, GSI3SK = <due_at>#<order_id>) and callback deliveries still to make
 * (GSI3PK = OUTBOX#<shard>, GSI3SK = <next_attempt_at>#<event_id>), and refunds not sent yet
 * (GSI3PK = REFUNDS#WAITING, GSI3SK = <created_at>#<refund_id>: the waiting-refunds metric),
 * and subscriptions not canceled (GSI3PK = SUBDUE#<shard>, GSI3SK = <real time of the next
 * step>#<subscription_id>: the renewal sweep).
 * One Query per shard, never a scan.
 *
 * GSI4 (keys only) is the order log: every order by creation time, sharded (GSI4PK =
 * ORDERLOG#<shard>, GSI4SK = <created_at>#<uid>), written by the order's own put and never
 * changed after. The numbering run reads it to learn which merchants have new orders, then
 * gives each merchant's orders, in GSI1 order, the next numbers of its sequence (order number
 * items 1..N, and its numbering cursor: N and the GSI1SK of order N). Get Orders beyond
 * MAX_OFFSET finds the order at any offset by its number (shared/store/order-numbers.ts).
 */
export const ENTITY = {
  order: 'ORDER',
  invoice: 'INVOICE',
  merchant: 'MERCHANT',
  apiToken: 'APITOKEN',
  merchantOrderId: 'MOID',
  counter: 'COUNTER',
  rates: 'RATES',
  address: 'ADDRESS',
  delivery: 'DELIVERY',
  idempotency: 'IDEMPOTENCY',
  checkoutSlots: 'CHECKOUTS',
  returnedAddress: 'ADDRPOOL',
  chainCursor: 'CHAIN_CURSOR',
  maturingPayment: 'MATURING_PAYMENT',
  unmatchedPayment: 'UNMATCHED_PAYMENT',
  watchedAddress: 'WATCHED_ADDRESS',
  openAddress: 'OPEN_ADDRESS',
  refundPayment: 'REFUND_PAYMENT',
  quota: 'QUOTA',
  sourceHealth: 'SOURCE_HEALTH',
  watchDemand: 'WATCH_DEMAND',
  watchLease: 'WATCH_LEASE',
  apiTokenListing: 'APITOKEN_LISTING',
  audit: 'AUDIT',
  portalUser: 'PORTAL_USER',
  passkey: 'PASSKEY',
  invite: 'INVITE',
  session: 'SESSION',
  challenge: 'CHALLENGE',
  recoveryCode: 'RECOVERY_CODE',
  txid: 'TXID',
  orderNumber: 'ORDER_NUMBER',
  orderNumbering: 'ORDER_NUMBERING',
  numberingRun: 'NUMBERING_RUN',
  email: 'EMAIL',
  suppressedAddress: 'SUPPRESSED_ADDRESS',
  paymentDigest: 'PAYMENT_DIGEST',
  paymentLink: 'PAYMENT_LINK',
  linkVisit: 'LINK_VISIT',
  linkHold: 'LINK_HOLD',
  linkRequest: 'LINK_REQUEST',
  refund: 'REFUND',
  refundLink: 'REFUND_LINK',
  plan: 'PLAN',
  subscription: 'SUBSCRIPTION',
  subscriptionPeriod: 'SUBSCRIPTION_PERIOD',
  subscriptionSearch: 'SUBSCRIPTION_SEARCH',
  subscriberLink: 'SUBSCRIBER_LINK',
  subscriberLinkState: 'SUBSCRIBER_LINK_STATE',
  subscriberMailbox: 'SUBSCRIBER_MAILBOX',
  subscriberLinkRequest: 'SUBSCRIBER_LINK_REQUEST',
} as const;

export interface TableKey {
  PK: string;
  SK: string;
}

export const orderKey = (orderId: string): TableKey => ({ PK: `ORDER#${orderId}`, SK: 'ORDER' });

/**
 * An order's invoices live in its partition, one item each (a checkout adds one; the order's
 * `invoice_id` names the current one). Invoice ids are time-ordered, so the latest sorts
 * last, just below the order item: one descending Query reads the order and its invoice.
 */
export const invoiceKey = (orderId: string, invoiceId: string): TableKey => ({
  PK: `ORDER#${orderId}`,
  SK: `${INVOICE_PREFIX}${invoiceId}`,
});

export const INVOICE_PREFIX = 'INVOICE#';
/** Before invoices had their own sort keys, an order's current invoice was `SK = INVOICE` (still read). */
export const LEGACY_INVOICE_SK = 'INVOICE';

export const orderPartition = (orderId: string): string => `ORDER#${orderId}`;

/** The order id of an item in an order's partition (from its PK). */
export const orderIdOfPartition = (pk: string): string => pk.slice('ORDER#'.length);

export const merchantKey = (userId: number): TableKey => ({ PK: `MERCHANT#${userId}`, SK: 'MERCHANT' });

/** Every API token lookup item's partition starts with this (read-only functions may set its last use). */
export const API_TOKEN_PREFIX = 'APITOKEN#';

export const apiTokenKey = (tokenHash: string): TableKey => ({ PK: `${API_TOKEN_PREFIX}${tokenHash}`, SK: 'APITOKEN' });

/**
 * A merchant's API token as its list shows it (name, first characters, created), in the
 * merchant's partition so one Query lists them all; the lookup item above is what
 * authentication reads.
 */
export const apiTokenListingKey = (userId: number, tokenId: string): TableKey => ({
  PK: `MERCHANT#${userId}`,
  SK: `${API_TOKEN_LISTING_PREFIX}${tokenId}`,
});

export const API_TOKEN_LISTING_PREFIX = 'TOKEN#';

/** One security-relevant change of a merchant's account, sorted by time (kept: no TTL). */
export const auditKey = (userId: number, at: string, id: string): TableKey => ({
  PK: `MERCHANT#${userId}`,
  SK: `${AUDIT_PREFIX}${at}#${id}`,
});

export const AUDIT_PREFIX = 'AUDIT#';

/** The copy of an unmatched payment to a merchant's own wallet, newest first in its portal (store/unmatched-payments.ts). */
export const merchantUnmatchedKey = (userId: number, seenAt: string, key: string): TableKey => ({
  PK: `MERCHANT#${userId}`,
  SK: `${MERCHANT_UNMATCHED_PREFIX}${seenAt}#${key}`,
});

export const MERCHANT_UNMATCHED_PREFIX = 'UNMATCHED#';

export const merchantOrderIdKey = (userId: number, merchantOrderId: string): TableKey => ({
  PK: `MOID#${userId}#${merchantOrderId}`,
  SK: 'MOID',
});

export const counterKey = (name: string): TableKey => ({ PK: `COUNTER#${name}`, SK: 'COUNTER' });

/** The last rates fetched from one HTTP source (a cache shared by every function). */
export const ratesKey = (source: string): TableKey => ({ PK: `RATES#${source}`, SK: 'RATES' });

/** Sort key for "newest first": ISO timestamps sort as strings; the id breaks ties. */
const newestFirstSortKey = (createdAt: string, orderId: string): string => `${createdAt}#${orderId}`;

export const merchantOrdersIndexKey = (userId: number, createdAt: string, orderId: string) => ({
  GSI1PK: `MERCHANT#${userId}`,
  GSI1SK: newestFirstSortKey(createdAt, orderId),
});

export const merchantStatusIndexKey = (userId: number, status: string, createdAt: string, orderId: string) => ({
  GSI2PK: `MERCHANT#${userId}#STATUS#${status}`,
  GSI2SK: newestFirstSortKey(createdAt, orderId),
});

export const merchantOrdersPartition = (userId: number): string => `MERCHANT#${userId}`;

/** Shards of the order log (GSI4): creates spread over this many index partitions. */
export const ORDER_LOG_SHARDS = 4;

/**
 * An order's entry in the order log: its creation time and merchant, both fixed for the
 * order's life, so a status change rewrites the same keys and costs the index nothing.
 */
export const orderLogIndexKey = (orderId: string, userId: number, createdAt: string) => ({
  GSI4PK: orderLogPartition(shardOf(orderId, ORDER_LOG_SHARDS)),
  GSI4SK: `${createdAt}#${userId}`,
});

export const orderLogPartition = (shard: number): string => `ORDERLOG#${shard}`;

/** The merchant of an order log entry (its sort key ends with it). */
export const userIdOfLogEntry = (sortKey: string): number => Number(sortKey.slice(sortKey.lastIndexOf('#') + 1));

/** A merchant's order `n` (1 = its oldest), in creation order: which order it is. */
export const orderNumberKey = (userId: number, n: number): TableKey => ({
  PK: orderNumbersPartition(userId),
  SK: orderNumberSortKey(n),
});

/** Numbers as fixed-width strings, so they sort as numbers (and below `CURSOR`). */
export const orderNumberSortKey = (n: number): string => String(n).padStart(12, '0');

/** How far a merchant's orders are numbered: the count N and the GSI1SK of order N. */
export const orderNumberingKey = (userId: number): TableKey => ({ PK: orderNumbersPartition(userId), SK: 'CURSOR' });

export const orderNumbersPartition = (userId: number): string => `NUMBER#${userId}`;

/** Up to which creation time the numbering run has read the order log. */
export const numberingRunKey: TableKey = { PK: 'NUMBERING', SK: 'CURSOR' };
export const merchantStatusPartition = (userId: number, status: string): string => `MERCHANT#${userId}#STATUS#${status}`;

/**
 * Which invoice an address belongs to: how a detected payment finds its order. Currencies
 * paid to one shared account (EOS) tell invoices apart by memo, so the memo is in the key.
 * A buyer's refund address has an item of the refund kind under the same key
 * (refund-watches.ts: `kind` REFUND, one `refund:<id>` attribute per refund waiting on it).
 */
export const addressKey = (currency: string, address: string, memo?: string): TableKey => ({
  PK: memo ? `ADDRESS#${currency}#${address}#${memo}` : `ADDRESS#${currency}#${address}`,
  SK: 'ADDRESS',
});

/**
 * Which refund a transfer to a refund address paid (refund-watches.ts claimRefundPayment):
 * written once, so a transfer never pays two refunds waiting on one address.
 */
export const refundPaymentKey = (currency: string, paymentKey: string): TableKey => ({ PK: `REFUNDPAY#${currency}#${paymentKey}`, SK: 'REFUNDPAY' });

/** Shards of the expiry index: spreads due orders over partitions (one Query each to sweep). */
export const EXPIRY_SHARDS = 4;
/** The outbox index uses the same sharding. */
export const OUTBOX_SHARDS = EXPIRY_SHARDS;

function shardOf(orderId: string, shards = EXPIRY_SHARDS): number {
  // The id is a random UUID (or an HMAC of the reference): its first hex digit is uniform.
  return Number.parseInt(orderId.slice(0, 1), 16) % shards;
}

export const expiryIndexKey = (orderId: string, dueAt: string) => ({
  GSI3PK: expiryPartition(shardOf(orderId)),
  GSI3SK: `${dueAt}#${orderId}`,
});

export const expiryPartition = (shard: number): string => `EXPIRY#${shard}`;

/** The due time an expiry index sort key (`<due_at>#<order_id>`) holds. */
export const dueAtOfExpiryKey = (sortKey: string): string => sortKey.slice(0, sortKey.indexOf('#'));

/**
 * A callback delivery, one per status change, in its subject's partition: the order's (its
 * callback log) or the subscription's (its events).
 */
export const deliveryKey = (subject: DeliverySubject, version: number): TableKey => ({
  PK: subject.subscription_id !== undefined ? subscriptionPartition(subject.subscription_id) : `ORDER#${subject.order_id}`,
  SK: `${DELIVERY_PREFIX}${String(version).padStart(10, '0')}`,
});

/** The subject a delivery item's partition names. */
export const deliverySubjectOfPartition = (pk: string): DeliverySubject => (pk.startsWith('SUB#') ? { subscription_id: subscriptionIdOfPartition(pk) } : { order_id: orderIdOfPartition(pk) });

export const DELIVERY_PREFIX = 'DELIVERY#';

export const outboxIndexKey = (subjectId: string, nextAttemptAt: string, eventId: string) => ({
  GSI3PK: outboxPartition(shardOf(subjectId)),
  GSI3SK: `${nextAttemptAt}#${eventId}`,
});

export const outboxPartition = (shard: number): string => `OUTBOX#${shard}`;

/** A POST's Idempotency-Key, scoped to the merchant (or the public page) that sent it. */
export const idempotencyKey = (scope: string, key: string): TableKey => ({
  PK: `IDEMPOTENCY#${scope}#${key}`,
  SK: 'IDEMPOTENCY',
});

/** Every quota item's partition starts with this (the read-only functions may write only these). */
export const QUOTA_PREFIX = 'QUOTA#';

/** A client's request count in one fixed window of its quota (expired by TTL). */
export const quotaKey = (client: string, window: number): TableKey => ({ PK: `${QUOTA_PREFIX}${client}`, SK: `W#${window}` });

/**
 * How many invoices an order has had (bounded: each one takes an address). Its sort key is
 * below `INVOICE`, outside the range the order-with-invoice Query reads.
 */
export const checkoutSlotsKey = (orderId: string): TableKey => ({ PK: `ORDER#${orderId}`, SK: 'CHECKOUTS' });

/**
 * An address index handed out by a counter and given back unused (its invoice was never
 * shown): the next invoice of that key takes the lowest one before the counter moves.
 */
export const returnedAddressKey = (counter: string, index: number): TableKey => ({
  PK: returnedAddressPartition(counter),
  SK: String(index).padStart(12, '0'),
});

export const returnedAddressPartition = (counter: string): string => `ADDRPOOL#${counter}`;
/** How far a chain watcher has scanned (height, hash and the hashes just below, for reorganisations). */
export const chainCursorKey = (chain: string): TableKey => ({ PK: chainPartition(chain), SK: 'CURSOR' });

export const chainPartition = (chain: string): string => `CHAIN#${chain}`;
/** The chain of a chain partition's key (`CHAIN#BTC` -> BTC); undefined for any other partition. */
export const chainOfPartition = (pk: string): string | undefined => (pk.startsWith('CHAIN#') && pk.length > 6 ? pk.slice(6) : undefined);

/** Until when a chain must be watched (its open invoices), and which run polls it now. */
export const watchDemandKey = (chain: string): TableKey => ({ PK: chainPartition(chain), SK: 'DEMAND' });
export const watchLeaseKey = (chain: string): TableKey => ({ PK: chainPartition(chain), SK: 'LEASE' });

/** Every source's health in one partition: the health view and the checkout gate read it with one Query. */
export const SOURCE_HEALTH_PARTITION = 'HEALTH';
export const sourceHealthKey = (source: string): TableKey => ({ PK: SOURCE_HEALTH_PARTITION, SK: source });

/**
 * A payment booked from a block that has not reached its confirmations yet: the watcher
 * re-reports it as blocks arrive, and takes it back if its block leaves the chain. Sorted by
 * height, so a reorganisation finds those above the fork point with one Query.
 */
export const maturingPaymentKey = (chain: string, height: number, paymentKey: string): TableKey => ({
  PK: chainPartition(chain),
  SK: `${MATURING_PREFIX}${heightSortKey(height)}#${paymentKey}`,
});

export const MATURING_PREFIX = 'PAYMENT#';

/** Heights as fixed-width strings, so they sort as numbers. */
export const heightSortKey = (height: number): string => String(height).padStart(12, '0');

/**
 * An address (or Solana Pay reference) a per-address source polls (watch-list.ts): sorted by
 * when it was written, so a warm watcher reads only what was added since its last read. Items
 * written before 2026-11-26 are keyed by the end of their late window instead
 * (`WATCH#<until>#<address>`, {@link legacyWatchedAddressKey}): a time never earlier than their
 * write, so the same incremental read finds them (incremental-list.ts).
 */
export const watchedAddressKey = (chain: string, writtenAt: string, address: string): TableKey => ({
  PK: chainPartition(chain),
  SK: `${WATCH_PREFIX}${writtenAt}#${address}`,
});

/** The key the watch list's items had before 2026-11-26 (by `until`); still read until the last of them expires. */
export const legacyWatchedAddressKey = (chain: string, until: string, address: string): TableKey => ({
  PK: chainPartition(chain),
  SK: `${WATCH_PREFIX}${until}#${address}`,
});

export const WATCH_PREFIX = 'WATCH#';

/**
 * An invoice address a block chain's watcher must match (watch-list.ts): sorted by when
 * it was written, so a warm watcher reads only what was added since its last read.
 */
export const openAddressKey = (chain: string, writtenAt: string, currency: string, address: string): TableKey => ({
  PK: chainPartition(chain),
  SK: `${OPEN_PREFIX}${writtenAt}#${currency}#${address}`,
});

export const OPEN_PREFIX = 'OPEN#';
/** When a chain's open-address list began (watch-list.ts): outside OPEN_PREFIX, so never read as an address. */
export const openListStartKey = (chain: string): TableKey => ({ PK: chainPartition(chain), SK: 'OPEN-LIST-START' });
/** Which orders a transaction paid (the portal's search by txid; one transaction may pay several). */
export const txidKey = (txid: string, orderId: string): TableKey => ({ PK: txidPartition(txid), SK: `ORDER#${orderId}` });
export const txidPartition = (txid: string): string => `TXID#${txid}`;

/** A portal user; listed per merchant (GSI1) for the team page. */
export const portalUserKey = (userId: string): TableKey => ({ PK: `USER#${userId}`, SK: 'USER' });
export const merchantUsersIndexKey = (merchantId: number, createdAt: string, userId: string) => ({
  GSI1PK: merchantUsersPartition(merchantId),
  GSI1SK: `${createdAt}#${userId}`,
});
export const merchantUsersPartition = (merchantId: number): string => `MERCHANT#${merchantId}#USERS`;

/** A user's passkey, found by its credential id at sign-in; listed per user (GSI1). */
export const passkeyKey = (credentialId: string): TableKey => ({ PK: `PASSKEY#${credentialId}`, SK: 'PASSKEY' });
export const userPasskeysIndexKey = (userId: string, createdAt: string) => ({ GSI1PK: `USER#${userId}#PASSKEYS`, GSI1SK: createdAt });
export const userPasskeysPartition = (userId: string): string => `USER#${userId}#PASSKEYS`;

/** Secrets of the portal are keyed by their SHA-256 (hex): the table never holds one. */
export const inviteKey = (tokenHash: string): TableKey => ({ PK: `INVITE#${tokenHash}`, SK: 'INVITE' });
export const sessionKey = (idHash: string): TableKey => ({ PK: `SESSION#${idHash}`, SK: 'SESSION' });
export const recoveryCodeKey = (codeHash: string): TableKey => ({ PK: `RECOVERY#${codeHash}`, SK: 'RECOVERY' });
/** A WebAuthn challenge waiting for its answer (single use; the answer names it in clientDataJSON). */
export const challengeKey = (challenge: string): TableKey => ({ PK: `CHALLENGE#${challenge}`, SK: 'CHALLENGE' });

/** A payment link, found by its id (the link page's address); listed per merchant (GSI1), newest first. */
export const paymentLinkKey = (linkId: string): TableKey => ({ PK: linkPartition(linkId), SK: 'LINK' });
export const merchantLinksIndexKey = (merchantId: number, createdAt: string, linkId: string) => ({
  GSI1PK: merchantLinksPartition(merchantId),
  GSI1SK: `${createdAt}#${linkId}`,
});
export const merchantLinksPartition = (merchantId: number): string => `MERCHANT#${merchantId}#LINKS`;
export const linkPartition = (linkId: string): string => `LINK#${linkId}`;

/**
 * A buyer's order made from a link (its visit id is time-ordered, so the link's orders list
 * newest first from one Query), and, on links with a quantity, the unit it holds until its
 * order is paid (the hold is then dropped, the unit stays sold) or expires unpaid (the hold is
 * dropped and the unit given back). Open holds are few: a full link reads only those.
 */
export const linkVisitKey = (linkId: string, visitId: string): TableKey => ({ PK: linkPartition(linkId), SK: `${LINK_VISIT_PREFIX}${visitId}` });
export const linkHoldKey = (linkId: string, visitId: string): TableKey => ({ PK: linkPartition(linkId), SK: `${LINK_HOLD_PREFIX}${visitId}` });
/** The visit a buyer's request (its Idempotency-Key, hashed) opened: a retry of the request goes on with it. */
export const linkRequestKey = (linkId: string, requestKey: string): TableKey => ({ PK: linkPartition(linkId), SK: `REQUEST#${requestKey}` });
export const LINK_VISIT_PREFIX = 'VISIT#';
export const LINK_HOLD_PREFIX = 'HOLD#';
/**
 * A refund lives in its order's partition, after the order item (`REFUND#` sorts above
 * `ORDER`, outside the range the order-with-invoice Query reads). Refund ids are time-ordered.
 */
export const refundKey = (orderId: string, refundId: string): TableKey => ({ PK: orderPartition(orderId), SK: `${REFUND_PREFIX}${refundId}` });
export const REFUND_PREFIX = 'REFUND#';

/** A merchant's refunds not sent yet, oldest first (GSI1; the refund item leaves it when SENT). */
export const waitingRefundsIndexKey = (userId: number, createdAt: string, refundId: string) => ({
  GSI1PK: waitingRefundsPartition(userId),
  GSI1SK: `${createdAt}#${refundId}`,
});
export const waitingRefundsPartition = (userId: number): string => `MERCHANT#${userId}#REFUNDS`;

/** Every refund not sent yet, oldest first (GSI3, keys only): the waiting-refunds metric counts it. */
export const allWaitingRefundsIndexKey = (createdAt: string, refundId: string) => ({
  GSI3PK: ALL_WAITING_REFUNDS,
  GSI3SK: `${createdAt}#${refundId}`,
});
export const ALL_WAITING_REFUNDS = 'REFUNDS#WAITING';

/** A refund link, found by the SHA-256 of its secret (the table never holds the secret). */
export const refundLinkKey = (secretHash: string): TableKey => ({ PK: `REFUNDLINK#${secretHash}`, SK: 'REFUNDLINK' });

/**
 * One email of one event to one recipient (`user:<portal user id>` or `buyer`): written before
 * it is sent, so a redelivered event sends it once.
 */
export const emailKey = (eventId: string, recipient: string): TableKey => ({ PK: `EMAIL#${eventId}`, SK: `TO#${recipient}` });
/** An address that bounced or complained (by its SHA-256: the table keeps no list of addresses as keys). */
export const suppressedAddressKey = (addressHash: string): TableKey => ({ PK: `SUPPRESSED#${addressHash}`, SK: 'SUPPRESSED' });
/** A merchant's payments of one UTC day, for the daily summary; one Query lists the day's merchants. */
export const paymentDigestKey = (day: string, merchantId: number): TableKey => ({ PK: paymentDigestPartition(day), SK: String(merchantId) });
export const paymentDigestPartition = (day: string): string => `DIGEST#${day}`;

/** A subscription plan, found by its id; listed per merchant (GSI1), newest first. */
export const planKey = (planId: string): TableKey => ({ PK: `PLAN#${planId}`, SK: 'PLAN' });
export const merchantPlansIndexKey = (merchantId: number, createdAt: string, planId: string) => ({
  GSI1PK: merchantPlansPartition(merchantId),
  GSI1SK: `${createdAt}#${planId}`,
});
export const merchantPlansPartition = (merchantId: number): string => `MERCHANT#${merchantId}#PLANS`;

/**
 * A subscription, found by its id; listed per merchant (GSI1) and per merchant and status
 * (GSI2), newest first; and, until canceled, in the sparse due index (GSI3) by the real time of
 * its next step, sharded as the expiry index is.
 */
export const subscriptionKey = (subscriptionId: string): TableKey => ({ PK: subscriptionPartition(subscriptionId), SK: 'SUB' });
export const subscriptionPartition = (subscriptionId: string): string => `SUB#${subscriptionId}`;
/** One period's order (an attempt) of a subscription, in its partition, sorted by period then attempt. */
export const subscriptionPeriodKey = (subscriptionId: string, period: number, attempt: number): TableKey => ({
  PK: subscriptionPartition(subscriptionId),
  SK: `${SUBSCRIPTION_PERIOD_PREFIX}${String(period).padStart(6, '0')}#${String(attempt).padStart(3, '0')}`,
});
export const SUBSCRIPTION_PERIOD_PREFIX = 'PERIOD#';
export const merchantSubscriptionsIndexKey = (merchantId: number, createdAt: string, subscriptionId: string) => ({
  GSI1PK: merchantSubscriptionsPartition(merchantId),
  GSI1SK: `${createdAt}#${subscriptionId}`,
});
export const merchantSubscriptionsPartition = (merchantId: number): string => `MERCHANT#${merchantId}#SUBS`;
export const merchantSubscriptionStatusIndexKey = (merchantId: number, status: string, createdAt: string, subscriptionId: string) => ({
  GSI2PK: merchantSubscriptionStatusPartition(merchantId, status),
  GSI2SK: `${createdAt}#${subscriptionId}`,
});
export const merchantSubscriptionStatusPartition = (merchantId: number, status: string): string => `MERCHANT#${merchantId}#SUBS#${status}`;
export const SUBSCRIPTION_DUE_SHARDS = EXPIRY_SHARDS;
export const subscriptionDueIndexKey = (subscriptionId: string, realAt: string) => ({
  GSI3PK: subscriptionDuePartition(shardOf(subscriptionId, SUBSCRIPTION_DUE_SHARDS)),
  GSI3SK: `${realAt}#${subscriptionId}`,
});
export const subscriptionDuePartition = (shard: number): string => `SUBDUE#${shard}`;
/**
 * What finds a merchant's subscriptions by the customer's email or the merchant's own customer
 * id (the portal's search): one item per subscription and value, lower-cased so that the search
 * ignores case, newest first in its partition. Written with the subscription (neither value ever
 * changes), holding only the subscription's id: the search reads the subscription itself.
 */
export const subscriptionSearchKey = (merchantId: number, value: string, createdAt: string, subscriptionId: string): TableKey => ({
  PK: subscriptionSearchPartition(merchantId, value),
  SK: `${createdAt}#${subscriptionId}`,
});
export const subscriptionSearchPartition = (merchantId: number, value: string): string => `MERCHANT#${merchantId}#SUBSEARCH#${value.toLowerCase()}`;
/** The subscription id of a subscription's key (`SUB#<id>`). */
export const subscriptionIdOfPartition = (pk: string): string => pk.slice('SUB#'.length);

/**
 * A subscriber's page link, found by the SHA-256 of its secret (the table never holds the
 * secret): it names the subscription and which of its links it is. A new link deletes the old
 * one's item in the same transaction, so an old secret finds nothing.
 */
export const subscriberLinkKey = (secretHash: string): TableKey => ({ PK: `SUBLINK#${secretHash}`, SK: 'SUBLINK' });
/** Which of a subscription's page links works now (its version), in the subscription's partition. */
export const subscriberLinkStateKey = (subscriptionId: string): TableKey => ({ PK: subscriptionPartition(subscriptionId), SK: 'SUBLINK' });
/**
 * A subscriber's subscriptions to one plan, by the SHA-256 of their lower-cased address: what
 * "email me my link" looks up (the table keeps no address in a key).
 */
export const subscriberMailboxKey = (planId: string, addressHash: string, subscriptionId: string): TableKey => ({
  PK: subscriberMailboxPartition(planId, addressHash),
  SK: `SUB#${subscriptionId}`,
});
export const subscriberMailboxPartition = (planId: string, addressHash: string): string => `SUBMAIL#${planId}#${addressHash}`;
/** One request of a subscriber's page link by email: its INSERT on the table's stream is the email's event (kept a day). */
export const subscriberLinkRequestKey = (requestId: string): TableKey => ({ PK: `SUBLINKREQ#${requestId}`, SK: 'SUBLINKREQ' });
