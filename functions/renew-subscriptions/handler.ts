import { renewalQueueHandler } from '#shared/services/subscription-renewals';

/** The renewal queue: each message is one subscription's steps (its period's order, past_due, canceled: shared/services/subscription-renewals.ts). */
export const handler = renewalQueueHandler;
