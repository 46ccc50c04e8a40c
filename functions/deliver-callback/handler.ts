import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleQueueBatch } from '#shared/aws/lambda-batches';
import { processDeliveryMessage } from '#shared/callbacks/delivery-job';

/** The callback queue: each message is one attempt of one delivery. */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => handleQueueBatch(event, 'callback delivery', (message) => processDeliveryMessage(message, new Date()));
