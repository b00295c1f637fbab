// Sweep mode (the `sweep` input): `runtime-bench sweep` installs or builds each version, starts
// its stacks and measures them in one interleaved run; the action only writes the benchmarks'
// config and hands the sweep its record path, so cleanup stops and removes what it made. Pure.
import { ConfigSchema, type Config } from '@runtime-bench/schemas';
import { RbError, parseWithFriendlyErrors } from '@runtime-bench/runner';
import { installSource, type ActionInputs } from './inputs.ts';

export function sweepMode(inputs: ActionInputs): boolean {
  if (inputs.sweep === '') return false;
  if (inputs.kubeconfig !== '')
    throw new RbError(
      'USAGE_INPUT',
      'sweep and kubeconfig are both set',
      'a sweep runs on local stacks: drop kubeconfig, or sweep on a self-hosted runner',
    );
  return true;
}

/** The user's config with the suites/runs shortcuts; its targets are the sweep's to set. */
export function buildSweepBaseConfig(base: unknown, inputs: ActionInputs): Config {
  const user = (base ?? {}) as Record<string, unknown>;
  if (typeof user !== 'object' || Array.isArray(user))
    throw new RbError('CONFIG_INVALID', `${inputs.config}: a config is a YAML mapping`);
  const { targets: _replaced, ...rest } = user;
  const merged = {
    ...rest,
    ...(inputs.suites ? { benchmarks: inputs.suites.split(/[\s,]+/).filter(Boolean) } : {}),
    ...(inputs.runs ? { runs: Number(inputs.runs) } : {}),
  };
  return parseWithFriendlyErrors(ConfigSchema, merged, inputs.config || 'the action inputs', {
    code: 'CONFIG_INVALID',
  });
}

/** `runtime-bench sweep …` as argv: every input one argument, never through a shell. */
export function sweepArgs(
  inputs: ActionInputs,
  files: { config: string; out: string; state: string },
): string[] {
  return [
    'sweep',
    ...inputs.sweep.split(/[\s,]+/).filter(Boolean),
    '--source',
    installSource(inputs, true),
    '--prefix',
    inputs.prefix,
    '--stack',
    inputs['stack-name'],
    '--config',
    files.config,
    '--state',
    files.state,
    '--out',
    files.out,
  ];
}
