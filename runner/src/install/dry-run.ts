// `install --dry-run`: the plan, and for each release step how every download will be verified.
// Where that is the release API's digest the API is read (as the install would read it), so a
// release nothing can verify fails the plan with the install's own error instead of passing it.
import type { InstallEnv } from './env.ts';
import { buildPlan, type InstallPlan, type InstallRequest, type StepVerification } from './plan.ts';
import { checkReleaseStep, type ReleaseOptions } from './release.ts';

export interface CheckedPlan {
  plan: InstallPlan;
  /** Per step: the release check, null for the other sources. */
  verification: (StepVerification | null)[];
}

export async function checkInstallPlan(
  env: InstallEnv,
  request: InstallRequest,
  options: ReleaseOptions,
): Promise<CheckedPlan> {
  const plan = buildPlan(request);
  const verification: (StepVerification | null)[] = [];
  for (const step of plan.steps)
    verification.push(
      step.source === 'release' ? await checkReleaseStep(env, step.component, step.version!, options) : null,
    );
  return { plan, verification };
}
