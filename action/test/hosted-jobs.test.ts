// A job on a GitHub-hosted runner gets the image's Node, older than the 24 that action/setup.sh
// (and the CLI it prepares) needs: every hosted job that runs setup.sh, or the action whose first
// step runs it, sets up Node 24 first. Read from every workflow of the repository as YAML.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '../..');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  'runs-on'?: unknown;
  steps?: Step[];
}

const files = [
  ...(await readdir(join(root, '.github/workflows'))).map((f) => `.github/workflows/${f}`),
  ...(await readdir(join(root, 'workflows'))).map((f) => `workflows/${f}`),
].filter((f) => /\.ya?ml$/.test(f));

/** A GitHub-hosted Linux image by label: ubuntu-latest, ubuntu-24.04, … */
const hosted = (runsOn: unknown): boolean => typeof runsOn === 'string' && /^ubuntu-/.test(runsOn);

/** Runs setup.sh: directly, or as the runtime-bench action's first step. */
const needsNode24 = (step: Step): boolean =>
  /\bsetup\.sh\b/.test(step.run ?? '') ||
  step.uses === './.runtime-bench-action' ||
  /^runtime-bench\/runtime-bench@/.test(step.uses ?? '');

const setsUpNode24 = (step: Step): boolean =>
  /^actions\/setup-node@[0-9a-f]{40}$/.test(step.uses ?? '') && String(step.with?.['node-version']) === '24';

async function hostedJobs(): Promise<{ where: string; steps: Step[] }[]> {
  const out: { where: string; steps: Step[] }[] = [];
  for (const file of files) {
    const doc = parse(await readFile(join(root, file), 'utf8')) as { jobs?: Record<string, Job> };
    for (const [name, job] of Object.entries(doc.jobs ?? {}))
      if (hosted(job['runs-on'])) out.push({ where: `${file} ${name}`, steps: job.steps ?? [] });
  }
  return out;
}

describe('hosted-runner jobs', () => {
  test('every hosted job that runs setup.sh sets up Node 24 (setup-node pinned by SHA) before it', async () => {
    const jobs = (await hostedJobs()).filter((j) => j.steps.some(needsNode24));
    // The reusable workflow's publish job is one: the check has something to check.
    expect(jobs.map((j) => j.where)).toContain('.github/workflows/runtime-bench.yml publish');
    for (const { where, steps } of jobs) {
      const first = steps.findIndex(needsNode24);
      const node = steps.findIndex(setsUpNode24);
      expect(node, `${where}: no actions/setup-node with node-version 24`).toBeGreaterThanOrEqual(0);
      expect(node, `${where}: setup-node after setup.sh`).toBeLessThan(first);
    }
  });

  test('the check catches a hosted job that runs setup.sh on the image Node', () => {
    const steps: Step[] = [{ run: 'bash .runtime-bench-action/action/setup.sh' }];
    expect(steps.some(needsNode24) && steps.findIndex(setsUpNode24) < 0).toBe(true);
  });
});
