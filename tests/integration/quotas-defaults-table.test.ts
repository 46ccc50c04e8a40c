/** Default quotas against real bursts (tests/support/quota-bursts.ts): QUOTA_STORE=table as in AWS and `npm start`, the handlers count in the table (DynamoDB Local). */
import { describeDefaultQuotas } from '../support/quota-bursts';

describeDefaultQuotas();
