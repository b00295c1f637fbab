import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseBisectionReport } from '../../../src/results/bisection-io.ts';
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

describe('bisection reports', () => {
  const file = join(
    import.meta.dirname,
    '../../../../data/bisections/2026/11/27/20261127T000729Z-runc-1.1.5-1.2.0-StartContainer.json',
  );
  const text = readFileSync(file, 'utf8');
  const compact = JSON.stringify(JSON.parse(text));
  const input = (t: string, source = 'r.json') => ({
    source,
    bisection: parseBisectionReport(t, source),
    text: t,
  });

  test('go to data/bisections under their id, as written (not in the shape they are read into)', () => {
    const [c] = prepareCandidates([input(compact)]);
    expect(c).toEqual({
      runId: '20261127T000729Z-runc-1.1.5-1.2.0-StartContainer',
      path: 'data/bisections/2026/11/27/20261127T000729Z-runc-1.1.5-1.2.0-StartContainer.json',
      content: text,
      sources: ['r.json'],
    });
    expect(JSON.parse(c!.content)).toMatchObject({
      schemaVersion: 1,
      tool: { name: 'runtime-bench', version: '0.1.0' },
    });
  });

  test('the same report twice is one; another under its id is refused', () => {
    expect(prepareCandidates([input(text, 'a.json'), input(compact, 'b.json')])).toHaveLength(1);
    const edited = JSON.stringify({ ...JSON.parse(text), message: 'edited' });
    expect(
      conflictOf(() => prepareCandidates([input(text, 'a.json'), input(edited, 'b.json')])).message,
    ).toContain('b.json and a.json both claim bisection id 20261127T000729Z-runc-1.1.5-1.2.0-StartContainer');
  });

  test('already on the branch (in any formatting): unchanged; a different file there: refused', () => {
    const [c] = prepareCandidates([input(text)]);
    const existing = (t: string) => new Map([[c!.runId, [{ path: c!.path, text: t }]]]);
    const plan = planPublication({
      candidates: [c!],
      existing: existing(compact),
      docs: [],
      existingDocs: new Map(),
      where,
    });
    expect(plan.unchanged).toEqual([c]);
    const edited = JSON.stringify({ ...JSON.parse(text), message: 'edited' });
    expect(() =>
      planPublication({
        candidates: [c!],
        existing: existing(edited),
        docs: [],
        existingDocs: new Map(),
        where,
      }),
    ).toThrow(/already published as origin\/benchmark-data:data\/bisections\/.* with different content/);
    expect(defaultCommitMessage({ add: [c!], unchanged: [], docs: [] })).toBe(
      `Add bisection ${c!.runId}\n\n- ${c!.path}\n`,
    );
  });
});
