// cluster.json is read from disk: a file cut short or written by another version is an RbError
// naming the file and the fix, never a ZodError or SyntaxError (an internal error, exit 70).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readClusterState } from '../../../src/cluster/state.ts';

describe('readClusterState', () => {
  test('no file: null (never brought up)', async () => {
    expect(await readClusterState(mkdtempSync(join(tmpdir(), 'rb-cl-')))).toBeNull();
  });

  test.each([
    ['cut short', '{"name": "c", "st', /cluster\.json is not JSON/],
    ['another version', '{"name": "c", "stack": 3}', /cluster\.json: stack: /],
  ])('%s: an RbError naming the file and the fix', async (_what, text, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-cl-'));
    writeFileSync(join(dir, 'cluster.json'), text);
    await expect(readClusterState(dir)).rejects.toMatchObject({
      name: 'RbError',
      code: 'CLUSTER_STATE',
      message: expect.stringMatching(message),
      hint: expect.stringContaining(`remove ${dir}`),
    });
  });
});
