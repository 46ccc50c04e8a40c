import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Runs a bench TypeScript module in its own node process (through tsx, as `npm run bench`
 * runs) and returns the JSON of the last line it prints. Its stderr passes through. Rejects
 * when the process fails or prints no JSON: that is a broken bench, not a slow machine.
 */
export function runChild<T>(file: string, env: Record<string, string>): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`${file} exited with ${code ?? signal}:\n${out.slice(-2000)}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${file} printed no JSON result:\n${out.slice(-2000)}`));
      }
    });
  });
}
