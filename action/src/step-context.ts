// What every step of the action is given: its inputs, the shared work directory and how to run
// the CLI. Its own module so the steps (steps.ts) and the bisect step (bisect.ts) both import it.
import type { GitHubContext } from './alert.ts';
import type { ActionInputs } from './inputs.ts';

export interface StepContext {
  inputs: ActionInputs;
  /**
   * Files shared between steps: install.json, config.yaml, result*.json, summary.md, and in
   * cluster mode kubeconfig.yaml while the run needs it.
   */
  workDir: string;
  /** Checkout of the calling repository (publishing needs its remote). */
  workspace: string;
  setOutput: (name: string, value: string) => void;
  /** Runs `runtime-bench <args>`; resolves on exit 0 (with stdout when `capture`). */
  runtimeBench: (
    args: string[],
    env?: Record<string, string>,
    capture?: boolean,
    okExitCodes?: readonly number[],
  ) => Promise<string>;
  /** Whether `writeSummary` may use GITHUB_STEP_SUMMARY. */
  stepSummary: boolean;
  /** The API, repository and run the alert step reports to (main.ts: from the runner's GITHUB_* variables). */
  github?: GitHubContext;
}
