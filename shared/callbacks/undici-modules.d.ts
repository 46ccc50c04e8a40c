// undici's modules that shared/callbacks/undici.ts imports one by one, typed with the
// declarations of undici's entry point (which re-exports each of them unchanged).
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/core/connect.js' {
  import { buildConnector } from 'undici';
  export default buildConnector;
}
declare module 'undici/lib/core/errors.js' {
  import { errors } from 'undici';
  export default errors;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  export default function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}
