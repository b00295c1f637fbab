// Property tests over the action's inputs: arbitrary values of any input give inputs or an
// RbError naming that input; what is accepted is what the CLI it is handed to accepts too (a
// budget `bisect --budget` reads, a threshold `check --threshold` reads, sweep words that are
// specs and never flags), so nothing fails only after the install and the benchmarks.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ConfigSchema } from '@runtime-bench/schemas';
import { RbError } from '@runtime-bench/runner';
import { parseSpec } from '@runtime-bench/runner/install';
import { parseBudget } from '@runtime-bench/runner/bisect-options';
import { ActionInputsSchema, readInputs, thresholdPercent, type ActionInputs } from '../src/inputs.ts';
import { pinnedSpecs } from '../src/reference.ts';
import { sweepArgs } from '../src/sweep.ts';

/** readInputs' value, or the RbError it refused the environment with (nothing else is allowed). */
function read(env: Record<string, string>): { inputs: ActionInputs } | { error: RbError } {
  try {
    return { inputs: readInputs(env) };
  } catch (error) {
    expect(error).toBeInstanceOf(RbError);
    return { error: error as RbError };
  }
}

const NAMES = Object.keys(ActionInputsSchema.shape);
const hostile = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '0',
    '0m',
    '0%',
    '-1',
    '9'.repeat(400),
    `${'9'.repeat(400)}%`,
    '1e3',
    '0x10',
    'runc@1.1.5..1.4.3',
    'runc@1.1.5 runc@1.2.0 --containerd /tmp/x',
    'constructor@1 constructor@2',
    'runc@latest',
    '5%%',
    'true',
    'yes',
  ),
);

describe('action inputs', () => {
  test('any input, any value: inputs, or an RbError naming that input', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), hostile, (name, value) => {
        const r = read({ [`INPUT_${name.toUpperCase()}`]: value });
        if ('error' in r) expect(r.error.message).toContain(`action inputs: ${name}: `);
      }),
      { numRuns: 3000 },
    );
  });

  test('bisect-budget: accepted exactly when `bisect --budget` takes it', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.stringMatching(/^[0-9hms.]{1,8}$/)), (budget) => {
        const r = read({ INPUT_BISECT_BUDGET: budget });
        const cli = (() => {
          try {
            return parseBudget(budget.trim());
          } catch {
            return null;
          }
        })();
        if (budget.trim() === '') return; // unset: the default
        expect('inputs' in r).toBe(cli !== null);
      }),
      { numRuns: 2000 },
    );
  });

  test('regression-threshold: accepted means a finite percentage ≥ 0 for check --threshold', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.stringMatching(/^[0-9.%]{1,8}$/)), (value) => {
        const r = read({ INPUT_REGRESSION_THRESHOLD: value });
        if ('error' in r) return;
        const percent = Number(thresholdPercent(r.inputs['regression-threshold']).percent);
        expect(Number.isFinite(percent) && percent >= 0).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  test('runs: accepted means the config takes it', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.nat().map(String)), (value) => {
        const r = read({ INPUT_RUNS: value });
        if ('inputs' in r && r.inputs.runs !== '')
          expect(ConfigSchema.shape.runs.safeParse(Number(r.inputs.runs)).success).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  test('sweep: accepted means every word handed to the CLI is a spec, none a flag', () => {
    const word = fc.oneof(
      fc.string(),
      fc.constantFrom('runc@1.1.5', 'runc@1.2.0', 'runc@1.1.5..1.4.3', '--out', '-x', 'containerd@2.0.14'),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 5 }), fc.constantFrom(' ', ',', '\n'), (words, sep) => {
        const r = read({ INPUT_SWEEP: words.join(sep) });
        if ('error' in r || r.inputs.sweep === '') return;
        const args = sweepArgs(r.inputs, { config: '/c', out: '/o', state: '/s' });
        const specs = args.slice(1, args.indexOf('--source'));
        expect(specs.length).toBeGreaterThan(0);
        for (const s of specs) {
          expect(s.startsWith('-')).toBe(false);
          expect(() => parseSpec(s.split('..')[0]!)).not.toThrow();
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('reference-handler: pinned specs, or an RbError naming the handler', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        try {
          for (const s of pinnedSpecs(value)) {
            expect(s.version).not.toBe('latest');
            expect(parseSpec(`${s.name}@${s.version}`)).toEqual({
              name: s.name,
              version: s.version,
              path: null,
            });
          }
        } catch (error) {
          expect(error).toBeInstanceOf(RbError);
          expect((error as RbError).message).toMatch(/^reference-handler[ :]/);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
