/**
 * The regeneration of docs/security.md's attack table (tests/support/security-report.ts), on a
 * copy of the document and a folder of its own: a stale table fails with how to fix it,
 * an update rewrites it, a partial run or another run's records leave it alone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ATTACKS, checkSecurityTable, recordAttack, SECURITY_DOC } from '../support/security-report';

let dir: string;
let paths: { records: string; document: string };
const savedRun = process.env.SECURITY_RUN_ID;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'security-report-'));
  paths = { records: join(dir, 'records'), document: join(dir, 'security.md') };
  writeFileSync(paths.document, readFileSync(SECURITY_DOC, 'utf8'));
  process.env.SECURITY_RUN_ID = 'unit-run';
});
afterEach(() => {
  process.env.SECURITY_RUN_ID = savedRun;
  rmSync(dir, { recursive: true, force: true });
});

const recordAll = (outcome: (id: string) => string) => {
  for (const id of ATTACKS) recordAttack(id, { attack: `attack ${id}`, count: 7, outcome: outcome(id), test: `tests/${id}.test.ts` }, paths.records);
};

describe('the attack table of docs/security.md', () => {
  it('fails a full run whose table differs from the committed one, saying how to fix it; an update rewrites it', () => {
    recordAll((id) => `what ${id} did | with a pipe`);
    expect(() => checkSecurityTable('unit-run', false, paths)).toThrow(/docs\/security\.md is stale.*without CHECK_DOCS/s);

    recordAll((id) => `what ${id} did | with a pipe`);
    expect(checkSecurityTable('unit-run', true, paths)).toBe('rewritten');
    const document = readFileSync(paths.document, 'utf8');
    expect(document).toContain('| attack authz-matrix | 7 | what authz-matrix did \\| with a pipe | `tests/authz-matrix.test.ts` |');
    // The same records again: current, nothing written.
    recordAll((id) => `what ${id} did | with a pipe`);
    expect(checkSecurityTable('unit-run', false, paths)).toBe('current');
    expect(readFileSync(paths.document, 'utf8')).toBe(document);
  });

  it('leaves the table alone after a partial run, or with records of another run', () => {
    const before = readFileSync(paths.document, 'utf8');
    recordAttack('idempotency-flood', { attack: 'a', count: 1, outcome: 'o', test: 't' }, paths.records);
    expect(checkSecurityTable('unit-run', true, paths)).toEqual({ missing: ATTACKS.filter((id) => id !== 'idempotency-flood') });
    recordAll(() => 'something else');
    expect(checkSecurityTable('another-run', true, paths)).toEqual({ missing: [...ATTACKS] });
    expect(readFileSync(paths.document, 'utf8')).toBe(before);
  });

  it('has a row in the committed document for every attack', () => {
    const committed = readFileSync(SECURITY_DOC, 'utf8');
    const table = committed.slice(committed.indexOf('attacks:begin'), committed.indexOf('attacks:end'));
    expect(table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Attack'))).toHaveLength(ATTACKS.length);
  });
});
