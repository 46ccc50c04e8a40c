/**
 * A DynamoDB Streams API record as Lambda delivers it to a stream's function: the local stream
 * poller (infra/local/stream-poller.ts) hands the order-events handler what AWS would.
 */
import type { AttributeValue as SdkAttributeValue, _Record as SdkRecord } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/** A Streams API record as Lambda delivers it (binary as base64, times in epoch seconds). */
export function toLambdaRecord(record: SdkRecord, streamArn: string, region: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const lambdaRecord: DynamoDBRecord = {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb: {
      ...(stream.ApproximateCreationDateTime && {
        ApproximateCreationDateTime: stream.ApproximateCreationDateTime.getTime() / 1000,
      }),
      ...(stream.Keys && { Keys: toLambdaImage(stream.Keys) }),
      ...(stream.NewImage && { NewImage: toLambdaImage(stream.NewImage) }),
      ...(stream.OldImage && { OldImage: toLambdaImage(stream.OldImage) }),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
    eventSourceARN: streamArn,
  };
  // Present on TTL deletions: { type: 'Service', principalId: 'dynamodb.amazonaws.com' }.
  if (record.userIdentity) lambdaRecord.userIdentity = { ...record.userIdentity };
  return lambdaRecord;
}

function toLambdaImage(image: Record<string, SdkAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaValue(value)]));
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function toLambdaValue(value: SdkAttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaValue) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  // The streams client deserializes an empty map ({"M": {}}) to a bare {}: the only attribute
  // value with no type key (sets cannot be empty), so it is an empty map.
  if (Object.keys(value).length === 0) return { M: {} };
  throw new Error(`unknown attribute value type: ${JSON.stringify(value)}`);
}
