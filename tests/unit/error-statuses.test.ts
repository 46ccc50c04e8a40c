import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/cdk/paths';
import * as domainErrors from '#shared/domain/errors';
import * as portalErrors from '#shared/domain/portal-errors';
import * as statusMachine from '#shared/domain/status-machine';
import * as subscriptionErrors from '#shared/domain/subscription-errors';
import { errorResponse, statusOf } from '#shared/http/errors';
import * as requestErrors from '#shared/http/request-errors';
import { sourcesUnder } from '../support/import-graph';

/**
 * Errors carry their code and no HTTP status; shared/http/errors.ts answers each code with its
 * status from one table, typed by the codes of the error modules below. The type check misses a
 * class declared in any other module, so this test finds every declaration of an error class in
 * the code and requires it to be in one of them, and every class of them to have its status.
 */
const MODULES = {
  'shared/domain/errors.ts': domainErrors,
  'shared/domain/portal-errors.ts': portalErrors,
  'shared/domain/status-machine.ts': statusMachine,
  'shared/domain/subscription-errors.ts': subscriptionErrors,
  'shared/http/request-errors.ts': requestErrors,
};

type ErrorClass = new (...details: never[]) => domainErrors.AppError;

const isErrorClass = (value: unknown): value is ErrorClass => typeof value === 'function' && value.prototype instanceof domainErrors.AppError;

/** One instance of every error class of the modules: details the constructor takes are left out, as only the code is read. */
const samples = Object.values(MODULES).flatMap((module) => (Object.values(module) as unknown[]).filter(isErrorClass).map((ErrorClass) => new ErrorClass()));

describe('the HTTP statuses of errors', () => {
  it('finds the error classes it checks', () => {
    expect(samples.map((error) => error.name)).toEqual(expect.arrayContaining(['OrderNotFoundError', 'SessionRequiredError', 'InvalidTransitionError', 'MalformedJsonError']));
  });

  it('has every error class declared in a module the status table is typed by', () => {
    const declaring = ['shared', 'functions', 'infra', 'tools'].flatMap(sourcesUnder).filter((file) => /\bclass\s+\w+\s+extends\s+AppError\b/.test(readFileSync(join(REPO_ROOT, file), 'utf8')));
    expect(declaring.length).toBeGreaterThan(0);
    expect(declaring.filter((file) => !(file in MODULES))).toEqual([]);
  });

  it('gives every error class a status, and answers it with that status', () => {
    for (const error of samples) {
      const status = statusOf(error);
      expect(status, error.name).toBeGreaterThanOrEqual(400);
      expect(status, error.name).toBeLessThan(600);
      expect(errorResponse(error).statusCode, error.name).toBe(status);
    }
  });

  it('answers an error whose code has no status as the bare 500, not with a status of its own making', () => {
    class StrayError extends domainErrors.AppError {
      readonly code = 'STRAY';
    }
    const stray = new StrayError('a case no table knows');
    expect(statusOf(stray)).toBeUndefined();
    expect(errorResponse(stray)).toMatchObject({ statusCode: 500, body: JSON.stringify({ status: 500, error: 'Internal server error', error_code: 'INTERNAL_ERROR' }) });
  });
});
