// The reference-handler input: a pinned OCI runtime build the nightly runs beside the handlers it
// watches, named to the gate (`check --reference`) as the target ids it has in a result. Pure.
import type { RunResult } from '@runtime-bench/schemas';
import { RbError } from '@runtime-bench/runner';
import { handlerName, parseSpecList } from '@runtime-bench/runner/install';
import type { ActionInputs } from './inputs.ts';
import { isMoving } from './run-config.ts';

/**
 * The target ids of the result that run the reference handler(s): every target whose CRI handler
 * is `<name>-<version>` of a `reference-handler` spec; one this result did not measure is refused.
 */
export function referenceTargetIds(inputs: ActionInputs, result: RunResult): string[] {
  const ids: string[] = [];
  for (const spec of pinnedSpecs(inputs['reference-handler'])) {
    const named = `${spec.name}@${spec.version}`;
    const handler = handlerName(spec.name, spec.version);
    const targets = result.targets.filter((t) => t.handler === handler).map((t) => t.id);
    if (targets.length === 0)
      throw new RbError(
        'USAGE_INPUT',
        `reference-handler ${named}: no target of this run uses the handler ${handler} (it has ${[...new Set(result.targets.map((t) => t.handler))].join(', ')})`,
        `add ${named} to oci-runtimes, so the reference runs beside the handlers it is the reference for`,
      );
    ids.push(...targets);
  }
  return ids;
}

/**
 * The input's specs, each at a pinned version; the error names the one that is not (read with the
 * other inputs, before anything is installed or measured).
 */
export function pinnedSpecs(text: string): { name: string; version: string }[] {
  return specsOf(text).map((spec) => {
    if (spec.path !== null || spec.version === null || isMoving(spec.version))
      throw new RbError(
        'USAGE_INPUT',
        `reference-handler ${spec.name}${spec.version === null ? '' : `@${spec.version}`}: a reference handler is a fixed build, never a moving or local one`,
        'name a pinned version that oci-runtimes installs too, e.g. reference-handler: runc@1.2.6',
      );
    return { name: spec.name, version: spec.version };
  });
}

/** The input's specs; a malformed one is refused naming the input, not only the word. */
function specsOf(text: string): ReturnType<typeof parseSpecList> {
  try {
    return parseSpecList(text);
  } catch (error) {
    if (!(error instanceof RbError)) throw error;
    throw new RbError('USAGE_INPUT', `reference-handler: ${error.message}`, error.hint);
  }
}
