import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** The JSON messages on a queue whose `field` is `value` (received, then deleted); the others come back after their visibility timeout. */
export async function drainMessages(client: SQSClient, queueUrl: string, field: string, value: unknown): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (let round = 0; round < 3; round += 1) {
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    for (const message of Messages) {
      const body = JSON.parse(message.Body!) as Record<string, unknown>;
      if (body[field] === value) {
        found.push(body);
        await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
      }
    }
    if (Messages.length === 0) break;
  }
  return found;
}
