import { describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { serializeResult } from '../../../src/results/io.ts';
import {
  defaultCommitMessage,
  indexRunPaths,
  planPublication,
  prepareCandidates,
} from '../../../src/publish/plan.ts';
import { resultNumber } from './helpers.ts';

const where = 'origin/benchmark-data';
const one = resultNumber(1);
const two = resultNumber(2);

function conflictOf(fn: () => unknown): RbError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RbError) return error;
    throw error;
  }
  throw new Error('expected a PUBLISH_CONFLICT');
}

describe('prepareCandidates', () => {
  test('one candidate per run, written in canonical form at its layout path', () => {
    const [c] = prepareCandidates([{ source: 'a.json', result: one }]);
    expect(c).toEqual({
      runId: one.runId,
      path: `data/runs/2026/11/02/${one.runId}.json`,
      content: serializeResult(one),
      sources: ['a.json'],
    });
  });

  test('the same run named twice collapses into one', () => {
    const cs = prepareCandidates([
      { source: 'a.json', result: one },
      { source: 'copy-of-a.json', result: structuredClone(one) },
    ]);
    expect(cs).toHaveLength(1);
    expect(cs[0]?.sources).toEqual(['a.json', 'copy-of-a.json']);
  });

  test('two different results claiming one run id are refused, naming both files', () => {
    const other = { ...two, runId: one.runId };
    const error = conflictOf(() =>
      prepareCandidates([
        { source: 'a.json', result: one },
        { source: 'b.json', result: other },
      ]),
    );
    expect(error.code).toBe('PUBLISH_CONFLICT');
    expect(error.message).toContain('b.json and a.json');
  });
});

describe('planPublication', () => {
  const [c1, c2] = prepareCandidates([
    { source: 'one.json', result: one },
    { source: 'two.json', result: two },
  ]);
  if (!c1 || !c2) throw new Error('fixture');

  test('new runs are added, runs already there with the same content are unchanged', () => {
    const plan = planPublication({
      candidates: [c1, c2],
      existing: new Map([[c1.runId, [{ path: c1.path, text: c1.content }]]]),
      docs: [],
      existingDocs: new Map(),
      where,
    });
    expect(plan.add.map((c) => c.runId)).toEqual([c2.runId]);
    expect(plan.unchanged.map((c) => c.runId)).toEqual([c1.runId]);
  });

  test('the same result formatted differently on the branch is still the same run', () => {
    const plan = planPublication({
      candidates: [c1],
      existing: new Map([[c1.runId, [{ path: c1.path, text: JSON.stringify(one) }]]]),
      docs: [],
      existingDocs: new Map(),
      where,
    });
    expect(plan.unchanged).toHaveLength(1);
    expect(plan.add).toHaveLength(0);
  });

  test('a different result under an existing run id is refused, naming input and branch file', () => {
    const changed = serializeResult({ ...one, status: 'incomplete', incompleteReason: 'edited' });
    const error = conflictOf(() =>
      planPublication({
        candidates: [c1],
        existing: new Map([[c1.runId, [{ path: c1.path, text: changed }]]]),
        docs: [],
        existingDocs: new Map(),
        where,
      }),
    );
    expect(error.code).toBe('PUBLISH_CONFLICT');
    expect(error.message).toContain('one.json');
    expect(error.message).toContain(`${where}:${c1.path}`);
  });

  test('the run id stored under another date directory is a conflict too', () => {
    const elsewhere = `data/runs/2026/01/01/${c1.runId}.json`;
    const error = conflictOf(() =>
      planPublication({
        candidates: [c1],
        existing: new Map([[c1.runId, [{ path: elsewhere, text: c1.content }]]]),
        docs: [],
        existingDocs: new Map(),
        where,
      }),
    );
    expect(error.message).toContain(elsewhere);
  });

  test('an unreadable file under the run id is never overwritten', () => {
    const error = conflictOf(() =>
      planPublication({
        candidates: [c1],
        existing: new Map([[c1.runId, [{ path: c1.path, text: '{ broken' }]]]),
        docs: [],
        existingDocs: new Map(),
        where,
      }),
    );
    expect(error.code).toBe('PUBLISH_CONFLICT');
    expect(error.message).toMatch(/not a valid result/);
  });

  test('doc files are added when missing, updated when different, left alone when equal', () => {
    const plan = planPublication({
      candidates: [],
      existing: new Map(),
      docs: [
        { path: 'README.md', content: 'new readme' },
        { path: 'schemas/result.schema.json', content: '{"v":2}' },
        { path: 'schemas/config.schema.json', content: '{}' },
      ],
      existingDocs: new Map([
        ['schemas/result.schema.json', '{"v":1}'],
        ['schemas/config.schema.json', '{}'],
      ]),
      where,
    });
    expect(plan.docs.map((d) => [d.path, d.action])).toEqual([
      ['README.md', 'add'],
      ['schemas/result.schema.json', 'update'],
    ]);
  });
});

describe('helpers', () => {
  test('indexRunPaths groups result paths by run id and skips other files', () => {
    const index = indexRunPaths([
      'data/runs/2026/11/21/20261121T080000Z-0123abcd.json',
      'data/runs/2026/11/22/20261121T080000Z-0123abcd.json',
      'data/runs/2026/11/22/notes.txt',
    ]);
    expect([...index.keys()]).toEqual(['20261121T080000Z-0123abcd']);
    expect(index.get('20261121T080000Z-0123abcd')).toHaveLength(2);
  });

  test('the default commit message lists what was added', () => {
    const message = defaultCommitMessage({ add: [c(1), c(2)], unchanged: [], docs: [] });
    expect(message.split('\n')[0]).toBe('Add 2 runs');
    expect(message).toContain(`- ${c(1).path}`);
    expect(defaultCommitMessage({ add: [c(1)], unchanged: [], docs: [] }).split('\n')[0]).toBe(
      `Add run ${c(1).runId}`,
    );
  });
});

function c(n: number) {
  const [candidate] = prepareCandidates([{ source: `${n}.json`, result: resultNumber(n) }]);
  if (!candidate) throw new Error('fixture');
  return candidate;
}
