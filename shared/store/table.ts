/**
 * The table's shape, shared by the CDK stack and the local runtime so both build the same
 * thing: generic keys; GSI1 and GSI2 project whole items (the list endpoints return full
 * orders from one query); GSI3, the sparse index of orders due to expire and callbacks to
 * resend, projects keys only: its sweepers need only which items, and an item's other
 * changes (a delivery's lease, for one) then cost no index write. GSI4, the order log (every
 * order by creation time, for the numbering run; keys.ts), projects keys only for the same
 * reason: its keys never change, so no order change after the create writes it.
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: 'ALL' },
    { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: 'KEYS_ONLY' },
    { name: 'GSI4', partitionKey: 'GSI4PK', sortKey: 'GSI4SK', projection: 'KEYS_ONLY' },
  ],
  /** Items with this attribute (epoch seconds) are removed by DynamoDB TTL. */
  ttlAttribute: 'expires_at_epoch',
} as const;
