import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs for every handler (service name from POWERTOOLS_SERVICE_NAME). */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'crypto-pay-orders' });
