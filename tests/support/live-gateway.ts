import { generateKeyPairSync } from 'node:crypto';
import { inject } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';

/**
 * What the gateway integration tests share: their own table (the expiry sweep runs over every
 * due order of it), the environment a Lambda would get (restored afterwards), the modules
 * loaded after it is set, and the API on a free port.
 */
export interface LiveGatewayHarness {
  m: {
    api: typeof import('./api');
    merchants: typeof import('#shared/services/merchants');
    orders: typeof import('#shared/store/orders');
    expiry: typeof import('#shared/services/expiry');
    gateways: typeof import('#shared/services/gateway-payments');
  };
  api: { url: string; close: () => Promise<void> };
  call: ReturnType<typeof import('./api').client>;
  setEnv(values: Record<string, string>): void;
  close(): Promise<void>;
}

/** An RSA key pair made for this run (PEM). */
export const rsaKeys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

export async function startLiveGatewayHarness(table: string): Promise<LiveGatewayHarness> {
  const saved: Record<string, string | undefined> = {};
  const setEnv = (values: Record<string, string>) => {
    for (const [name, value] of Object.entries(values)) {
      if (!(name in saved)) saved[name] = process.env[name];
      process.env[name] = value;
    }
  };
  await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
  setEnv({ TABLE_NAME: table });
  const m = {
    api: await import('./api'),
    merchants: await import('#shared/services/merchants'),
    orders: await import('#shared/store/orders'),
    expiry: await import('#shared/services/expiry'),
    gateways: await import('#shared/services/gateway-payments'),
  };
  const api = await m.api.startApi();
  setEnv({ PUBLIC_API_URL: `${api.url}/` });
  return {
    m,
    api,
    call: m.api.client(api.url),
    setEnv,
    close: async () => {
      await api.close();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}
