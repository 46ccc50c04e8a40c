/**
 * The table's shape, shared by the CDK stack and the local runtime so both build the same
 * thing: generic keys, two GSIs projecting whole items (list endpoints return full orders).
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ],
  /** Items with this attribute (epoch seconds) are removed by DynamoDB TTL. */
  ttlAttribute: 'expires_at_epoch',
} as const;

export type IndexName = (typeof TABLE_KEYS.indexes)[number]['name'];
