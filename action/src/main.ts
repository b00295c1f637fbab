// Entry of every action step: `node action/src/main.ts <step>`. The only module of the action that
// reads process.env and sets the exit code (through core.setFailed).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import { RbError, errorMessage } from '@runtime-bench/runner';
import { githubFromEnv } from './alert.ts';
import { clusterMode, kubeconfigSecrets } from './cluster.ts';
import { readInputs } from './inputs.ts';
import { STEPS, spawnRuntimeBench } from './steps.ts';
import { recordTiming } from './timings.ts';

const step = process.argv[2] as keyof typeof STEPS | undefined;
try {
  if (!step || !(step in STEPS))
    throw new RbError(
      'USAGE_STEP',
      `unknown step "${step ?? ''}"`,
      `one of ${Object.keys(STEPS).join(', ')}`,
    );
  const workDir = process.env.RB_ACTION_DIR || join(process.env.RUNNER_TEMP || tmpdir(), 'runtime-bench');
  const started = performance.now();
  const inputs = readInputs(process.env);
  // Before anything can print: the kubeconfig and each credential in it are masked in the log.
  if (clusterMode(inputs)) for (const secret of kubeconfigSecrets(inputs.kubeconfig)) core.setSecret(secret);
  try {
    await STEPS[step]({
      inputs,
      workDir,
      workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
      setOutput: (name, value) => core.setOutput(name, value),
      runtimeBench: spawnRuntimeBench,
      stepSummary: Boolean(process.env.GITHUB_STEP_SUMMARY),
      github: githubFromEnv(process.env),
    });
  } finally {
    // The benchmark steps' own cost, for the summary's runner-side cost table.
    // (Cluster mode installs nothing and starts no stack: only its run is a cost.)
    if (step === 'run' || ((step === 'install' || step === 'up') && !clusterMode(inputs)))
      await recordTiming(workDir, { step, seconds: (performance.now() - started) / 1000, note: '' });
  }
} catch (error) {
  const hint = error instanceof RbError && error.hint ? ` (hint: ${error.hint})` : '';
  core.setFailed(`${errorMessage(error)}${hint}`);
}
