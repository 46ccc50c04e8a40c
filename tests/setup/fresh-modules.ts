import { vi } from 'vitest';

/**
 * Runs before each file of the `fresh-modules` project (the integration, end-to-end and
 * compatibility files), whose files share a worker process one after another
 * (vitest.config.ts). The environment goes back to what the worker started with (a file sets
 * the variables its handlers read: a gateway's credentials, a quota store, a chain's source),
 * and the repository's modules are loaded anew: a handler reads that environment as a cold
 * start would, and no module state (a cached setting, a client, a memo) carries over from the
 * file before. Packages from node_modules stay loaded: that, and not starting a process per
 * file, is what the sharing saves.
 */
const holder = globalThis as { workerStartEnv?: Record<string, string | undefined> };
const startEnv = (holder.workerStartEnv ??= { ...process.env });
for (const name of Object.keys(process.env)) if (!(name in startEnv)) delete process.env[name];
Object.assign(process.env, startEnv);
vi.resetModules();
