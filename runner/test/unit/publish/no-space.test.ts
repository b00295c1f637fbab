// Publishing from a clone whose disk is full: git cannot write the commit's objects. The error
// says so, names the clone and the space; nothing is published, nothing of the caller changes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RbError } from '../../../src/errors.ts';
import { EXIT } from '../../../src/exit-codes.ts';
import { publishResults, readInputs } from '../../../src/publish/publish.ts';
import { mountSmallFs, type SmallFs } from '../../support/small-fs.ts';
import { createSandbox, resultNumber, type Sandbox } from './helpers.ts';

const BRANCH = 'benchmark-data';
let box: Sandbox;
let fs: SmallFs | null = null;
beforeEach(async () => {
  box = await createSandbox();
});
afterEach(async () => {
  fs?.dispose();
  fs = null;
  await box.cleanup();
});

describe('publish onto a full disk', () => {
  test('a clear error naming the clone and the space; nothing published; the result file untouched', async () => {
    fs = mountSmallFs(1024 * 1024, 1024 * 1024);
    const work = join(fs.dir, 'work');
    await box.sh(box.root, 'clone', '--quiet', box.bare, work);
    const file = await box.writeResult('one.json', resultNumber(1));
    const before = readFileSync(file, 'utf8');
    const inputs = await readInputs([file]);
    // What is committed is the canonical serialisation: two-space indent and a final newline.
    const needed = Buffer.byteLength(`${JSON.stringify(resultNumber(1), null, 2)}\n`);
    // Now the clone's disk is full.
    writeFileSync(join(fs.dir, 'more-filler'), Buffer.alloc(fs.available()));
    expect(fs.available()).toBe(0);

    const error = await publishResults(
      inputs,
      { repo: work, remote: 'origin', branch: BRANCH },
      { git: box.git, log: () => undefined, sleep: () => Promise.resolve(), random: () => 0 },
    ).then(
      () => null,
      (e: unknown) => e as RbError,
    );
    expect(error).toBeInstanceOf(RbError);
    expect(error!.code).toBe('NO_SPACE');
    expect(error!.cliExitCode).toBe(EXIT.error.code);
    expect(error!.message).toContain(`${work}: no room for git to write the commit`);
    expect(error!.message).toMatch(new RegExp(`needs about ${needed} bytes, 0 bytes are free`));
    expect(error!.message).toContain('nothing was published');
    expect(error!.hint).toMatch(/free space/);

    // Nothing on the remote, the input as it was, no temporary worktree left registered.
    const tip = await box.git.run(['rev-parse', '--verify', '--quiet', `refs/heads/${BRANCH}`], {
      cwd: box.bare,
    });
    expect(tip.exitCode).not.toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect((await box.sh(work, 'worktree', 'list', '--porcelain')).match(/^worktree /gm)).toHaveLength(1);
  });
});
