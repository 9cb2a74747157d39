import { expect } from 'chai';
import pino from 'pino';
import { FunctionLock, type FunctionLockOptions } from '../../../src/packages/functionLock.js';
import type { FunctionPackage, FunctionRevision } from '../../../src/packages/types.js';

// A Function's entries in the Lock, against a recording Lock: the current revision once active (an older active one
// while it is not), the built-in's own entry removed, and a Lock that cannot be written logged, never thrown.
const signal = new AbortController().signal;

type Lock = NonNullable<FunctionLockOptions['lock']>;

/** A Lock recording its calls as `verb name`; `fail` makes every call reject. */
function recordingLock(calls: string[], fail = false): Lock {
  const settle = (call: string): Promise<void> => {
    calls.push(call);
    return fail ? Promise.reject(new Error('cannot update Lock: injected')) : Promise.resolve();
  };
  return {
    record: (entry) => settle(`record ${entry.name} ${entry.image}`),
    recordUnlessListed: (entry) => settle(`recordUnlessListed ${entry.name} ${entry.image}`),
    removeSelf: (name, _signal, type) => settle(`removeSelf ${name} ${type ?? ''}`),
  };
}

function revision(name: string, desiredState: 'Active' | 'Inactive'): FunctionRevision {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'FunctionRevision',
    metadata: { name },
    spec: { desiredState, image: `xpkg.example/fn:${name}`, revision: 1 },
  };
}

/** A logger whose warnings land in `warnings`. */
function warningsInto(warnings: string[]): pino.Logger {
  const logger = pino({ level: 'silent' });
  logger.warn = ((obj: object, msg: string) => {
    warnings.push(`${msg}: ${JSON.stringify(obj)}`);
  }) as pino.LogFn;
  return logger;
}

describe('packages/FunctionLock', () => {
  const cases: Record<
    string,
    { reason: string; current: FunctionRevision; others: FunctionRevision[]; want: string[] }
  > = {
    active: {
      reason: 'an active current revision is listed, every other removed',
      current: revision('fn-b', 'Active'),
      others: [revision('fn-a', 'Active')],
      want: ['removeSelf fn Function', 'removeSelf fn-a Function', 'record fn-b xpkg.example/fn:fn-b'],
    },
    inactive: {
      reason: 'an inactive current revision is not listed; the active older one stays',
      current: revision('fn-b', 'Inactive'),
      others: [revision('fn-a', 'Active'), revision('fn-0', 'Inactive')],
      want: ['removeSelf fn Function', 'removeSelf fn-b Function', 'removeSelf fn-0 Function'],
    },
  };
  for (const [name, { reason, current, others, want }] of Object.entries(cases)) {
    it(`recordRevisions: ${name}`, async () => {
      const calls: string[] = [];
      const lock = new FunctionLock({ lock: recordingLock(calls), logger: pino({ level: 'silent' }), controller: 'c' });
      await lock.recordRevisions('fn', current, others, signal);
      expect(calls, reason).to.deep.equal(want);
    });
  }

  it('recordBuiltin lists the Function under its own name at its package, unless listed', async () => {
    const calls: string[] = [];
    const lock = new FunctionLock({ lock: recordingLock(calls), logger: pino({ level: 'silent' }), controller: 'c' });
    const fn: FunctionPackage = {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: 'fn' },
      spec: { package: 'xpkg.example/fn:v1' },
    };
    await lock.recordBuiltin(fn, signal);
    expect(calls).to.deep.equal(['recordUnlessListed fn xpkg.example/fn:v1']);
  });

  it('a Lock that cannot be written is logged with the controller, never thrown', async () => {
    const calls: string[] = [];
    const warnings: string[] = [];
    const lock = new FunctionLock({
      lock: recordingLock(calls, true),
      logger: warningsInto(warnings),
      controller: 'c',
    });
    await lock.recordRevisions('fn', revision('fn-b', 'Active'), [], signal);
    await lock.recordBuiltin(
      { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function', metadata: { name: 'fn' } },
      signal,
    );
    expect(calls, 'the first failure stops the revisions').to.deep.equal([
      'removeSelf fn Function',
      'recordUnlessListed fn ',
    ]);
    expect(warnings).to.have.length(2);
    for (const warning of warnings) expect(warning).to.match(/^cannot update the package Lock: .*"controller":"c"/);
  });
});
