import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, StreamViewType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '#shared/store/table';

/**
 * The service's single table, shaped by TABLE_KEYS (the same source the local runtime builds
 * its table from). It holds merchants, orders and invoices, so it is protected three ways:
 * deletion protection, RETAIN on stack deletion, and point-in-time recovery.
 */
export class OrderTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const key = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new TableV2(this, 'Table', {
      partitionKey: key(TABLE_KEYS.partitionKey),
      sortKey: key(TABLE_KEYS.sortKey),
      // Whole items in the list indexes (full orders from one query), keys only in the sweepers'.
      globalSecondaryIndexes: TABLE_KEYS.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        projectionType: ProjectionType[index.projection],
      })),
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      billing: Billing.onDemand(),
      // Old and new images: order-events reads the inserted delivery from the new image; the old
      // one is kept for diagnosis and replays.
      dynamoStream: StreamViewType.NEW_AND_OLD_IMAGES,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      encryption: TableEncryptionV2.awsManagedKey(),
    });
  }
}
