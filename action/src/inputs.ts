// The action's inputs, read from the INPUT_* environment the way the runner hands them to a step
// (action.yml maps every input into `env:`; nothing is interpolated into shell). Pure: the
// environment is a parameter.
import { z } from 'zod';
import { ConfigSchema, TransportSchema } from '@runtime-bench/schemas';
import { RbError, parseWithFriendlyErrors } from '@runtime-bench/runner';
import { parseSweepSpecs } from '@runtime-bench/runner/sweep';
import { parseBudget } from '@runtime-bench/runner/bisect-options';

/**
 * An input checked by the parser the CLI reads it with: refused when the inputs are read (its
 * message and fix), not after the install and the benchmarks, when the CLI is handed it.
 */
const checkedBy = (parse: (text: string) => unknown) => (text: string, ctx: z.RefinementCtx) => {
  if (text === '') return;
  try {
    parse(text);
  } catch (error) {
    if (!(error instanceof RbError)) throw error;
    ctx.addIssue({ code: 'custom', message: `${error.message}${error.hint ? ` (${error.hint})` : ''}` });
  }
};

const bool = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.enum(['true', 'false', '']))
  .transform((s) => s === 'true');

/** Every input of action.yml, its default, and how it is checked. Keep in sync: a test compares. */
export const ActionInputsSchema = z.strictObject({
  cri: z.enum(['containerd', 'cri-o']).default('containerd'),
  'cri-version': z.string().trim().default('latest'),
  'oci-runtimes': z.string().trim().default('runc@latest'),
  // '' is the default: release archives for an install, the Go module proxy for a sweep (the
  // source that lists versions, so a range such as runc@1.1.5..1.4.3 resolves): installSource.
  source: z.enum(['release', 'distro', 'path', 'go', '']).default(''),
  // `runtime-bench sweep`'s versions: then the sweep installs, starts its stacks and runs.
  // Each word becomes an argument of `runtime-bench sweep`: checked as the sweep reads it, so no
  // word is taken for one of its flags (`--containerd /tmp/x`).
  sweep: z
    .string()
    .trim()
    .superRefine(checkedBy((text) => parseSweepSpecs([text])))
    .default(''),
  config: z.string().trim().default(''),
  suites: z.string().trim().default(''),
  runs: z
    .string()
    .trim()
    .regex(/^(\d+)?$/, { message: 'runs is a whole number' })
    // The config's own bounds, so a run of 0 or 10^9 repetitions is refused before the install.
    .refine((s) => s === '' || ConfigSchema.shape.runs.safeParse(Number(s)).success, {
      message: 'runs is a whole number from 1 to 100000',
    })
    .default(''),
  'cri-client': TransportSchema.default('grpc'),
  'crictl-version': z.string().trim().default(''),
  prefix: z.string().trim().default('/opt/runtime-bench'),
  'stack-name': z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9-]{0,30}$/, { message: 'a stack name is lower-case letters, digits and "-"' })
    .default('action'),
  baseline: z.string().trim().default(''),
  // A percentage with its unit ("5%"); a bare number is read as percent, with a deprecation warning.
  'regression-threshold': z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?%?$/, { message: 'a percentage such as 5%' })
    // `check --threshold` takes a finite percentage only (400 digits are Infinity to Number()).
    .refine((s) => Number.isFinite(Number(s.replace(/%$/, ''))), { message: 'a percentage such as 5%' })
    .default('5%'),
  // Pinned builds named to the gate as references (action/src/reference.ts); checked against the result.
  'reference-handler': z.string().trim().default(''),
  'fail-on-regression': bool.default(false),
  // A regression at a new version of a component bisect can build is bisected (action/src/bisect.ts).
  'bisect-on-regression': bool.default(false),
  // `bisect --budget` reads it: 0m or 9999h would pass a regex and fail only at the bisection.
  'bisect-budget': z.string().trim().superRefine(checkedBy(parseBudget)).default('60m'),
  // The deployed site's address (with its base path): the summary and alert issues link its pages.
  'site-url': z
    .string()
    .trim()
    .refine((s) => s === '' || ['http:', 'https:'].includes(URL.parse(s)?.protocol ?? ''), {
      message: 'an http(s) address such as https://org.github.io/runtime-bench',
    })
    .default(''),
  // One issue per regressed benchmark × metric × target lineage (action/src/alert.ts).
  'alert-issue': bool.default(false),
  'github-token': z.string().default(''),
  publish: bool.default(false),
  'data-branch': z.string().trim().default('benchmark-data'),
  token: z.string().default(''),
  keep: bool.default(false),
  'fix-host': bool.default(true),
  // When a runtime asked for at a moving version moved since its last night, measure the previous
  // version beside it the same night (action/src/side-by-side.ts).
  'side-by-side': bool.default(true),
  // Cluster mode (action/src/cluster.ts): a kubeconfig's content instead of a local stack.
  kubeconfig: z.string().default(''),
  'runtime-classes': z.string().trim().default(''),
  nodes: z.string().trim().default(''),
  image: z.string().trim().default(''),
  'image-pull-policy': z
    .string()
    .trim()
    .regex(/^(Always|IfNotPresent|Never)?$/, { message: 'one of Always, IfNotPresent, Never' })
    .default(''),
});
export type ActionInputs = z.output<typeof ActionInputsSchema>;

/** Environment variable names the runner uses for an input (`cri-version` → INPUT_CRI-VERSION), and ours with `_`. */
export function inputEnvNames(name: string): string[] {
  const upper = `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
  return [upper, upper.replace(/-/g, '_')];
}

/** Reads and validates the inputs; an empty value means the default (as the runner sends unset inputs). */
export function readInputs(env: Readonly<Record<string, string | undefined>>): ActionInputs {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(ActionInputsSchema.shape)) {
    const value = inputEnvNames(name)
      .map((n) => env[n])
      .find((v) => v !== undefined && v !== '');
    if (value !== undefined) raw[name] = value;
  }
  return parseWithFriendlyErrors(ActionInputsSchema, raw, 'action inputs', {
    code: 'USAGE_INPUT',
    hint: 'fix the `with:` of the step',
  });
}

/** Where runtimes come from: the `source` input, else release archives (install) or the Go module proxy (sweep). */
export function installSource(
  inputs: Pick<ActionInputs, 'source'>,
  sweep = false,
): Exclude<ActionInputs['source'], ''> {
  return inputs.source || (sweep ? 'go' : 'release');
}

/**
 * The regression threshold as `check --threshold` takes it (percent, no unit), and the warning
 * for the deprecated bare number (read as percent, as before the unit was asked for).
 */
export function thresholdPercent(value: string): { percent: string; deprecation: string | null } {
  if (value.endsWith('%')) return { percent: value.slice(0, -1), deprecation: null };
  return {
    percent: value,
    deprecation: `regression-threshold: '${value}' has no unit and is read as ${value}%; write '${value}%' (a bare number will be refused in a later release)`,
  };
}
