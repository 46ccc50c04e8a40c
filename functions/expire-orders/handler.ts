import { sweepMinute } from '#shared/services/minute-sweep';

/** Scheduled every minute: expires due orders, numbers new ones, queues due subscription renewals and counts the refunds waiting (shared/services/minute-sweep.ts). */
export const handler = (): Promise<{ expired: number; numbered: number; renewals: number; refundsWaiting?: number }> => sweepMinute(new Date());
