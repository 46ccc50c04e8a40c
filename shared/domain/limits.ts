/** Largest request body the API reads (API Gateway allows 10 MB; no valid request nears 64 KB). */
export const MAX_BODY_BYTES = 64 * 1024;

/** A sandbox payment's amount is at most this many times its invoice's amount. */
export const MAX_SANDBOX_PAYMENT_FACTOR = 1000;

/**
 * Deepest `offset` Get Orders reads straight from the list index (a page there reads
 * `offset + limit` items, never more than MAX_OFFSET + 50). Deeper, an unfiltered page is
 * found by order number (O(limit) reads); a status-filtered list ends here.
 */
export const MAX_OFFSET = 1000;

/**
 * Invoices one order may have: 16, what one in each of the first 11 pay currencies and 5 more
 * made after earlier ones expired took before other networks came (more pay currencies do not
 * raise it: a buyer tries a few, and the bound is what keeps a link's addresses few). Each crypto invoice takes a fresh address from the key's sequence; a buyer who
 * switches back to a currency gets its still-valid invoice again, so only switching after
 * invoices expire uses more. Bounded because wallets stop scanning after a gap of unused
 * addresses (see docs/operator-guide.md, "Keys, accounts and gateways").
 */
export const MAX_INVOICES_PER_ORDER = 16;

/**
 * The stock of a payment link with a quantity: at most 10,000 units. A quantity is for stock that
 * runs out (seats, tickets, a batch); past that it is in effect no limit, which is leaving the
 * quantity out. Each unit is held by an order while it is being paid, and a buyer's order is one
 * unit (the link page takes no quantity): more units mean more orders, each counted against the
 * stock and the payment page's per-client limits.
 */
export const MAX_LINK_QUANTITY = 10_000;

/**
 * Fields one request body may have. Unknown fields are ignored (real MugglePay clients send
 * some), but not without bound: the largest body the contract defines has 15 fields.
 */
export const MAX_BODY_FIELDS = 50;
