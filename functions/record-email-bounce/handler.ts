import type { EventBridgeEvent } from 'aws-lambda';
import { recordSesEvent, type SesEvent } from '#shared/email/bounces';
import { publishMetrics } from '#shared/core/metrics';

/**
 * SES's bounce and complaint events (the configuration set's EventBridge destination): the
 * addresses are suppressed, so no more email is sent to them.
 */
export const handler = async (event: EventBridgeEvent<string, SesEvent>): Promise<{ suppressed: number }> => {
  try {
    return { suppressed: (await recordSesEvent(event.detail, new Date())).length };
  } finally {
    publishMetrics();
  }
};
