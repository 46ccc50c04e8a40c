/** Default quotas against real bursts (tests/support/quota-bursts.ts), the local runtime: the HTTP adapter counts in memory, the handlers nothing. */
import { describeDefaultQuotas } from '../support/quota-bursts';

describeDefaultQuotas('local');
