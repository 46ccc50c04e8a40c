import { sweepMinute } from '#shared/services/minute-sweep';

/** Scheduled every minute: expires due orders and numbers new ones (shared/services/minute-sweep.ts). */
export const handler = (): Promise<{ expired: number; numbered: number }> => sweepMinute(new Date());
