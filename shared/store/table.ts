/**
 * The table's shape, shared by the CDK stack and the local runtime so both build the same
 * thing: generic keys and GSIs projecting whole items (list endpoints return full orders;
 * GSI3 is the sparse index of orders due to expire).
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    { name: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  ],
  /** Items with this attribute (epoch seconds) are removed by DynamoDB TTL. */
  ttlAttribute: 'expires_at_epoch',
} as const;

export type IndexName = (typeof TABLE_KEYS.indexes)[number]['name'];
