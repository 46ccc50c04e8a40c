import { Logger } from '@aws-lambda-powertools/logger';
import { observabilityConfig } from '#shared/core/config';

/** Structured JSON logs for every handler (service name from POWERTOOLS_SERVICE_NAME, level from POWERTOOLS_LOG_LEVEL). */
export const logger = new Logger({ serviceName: observabilityConfig().serviceName });
