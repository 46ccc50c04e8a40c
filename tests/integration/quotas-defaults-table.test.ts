/** Default quotas against real bursts (tests/support/quota-bursts.ts), AWS: QUOTA_STORE=table, the handlers count in the table (DynamoDB Local). */
import { describeDefaultQuotas } from '../support/quota-bursts';

describeDefaultQuotas('table');
