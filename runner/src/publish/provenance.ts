// What publish demands of a result's provenance: a result measured by a runtime-bench whose
// checkout had uncommitted changes ("+dirty" in tool.gitCommit) names code that no commit holds,
// so nobody can rerun what measured it. Such results are refused unless the publisher says so
// (--allow-dirty); the file already carries the mark, and the site shows it.
import { fromModifiedCheckout } from '@runtime-bench/schemas';
import { RbError } from '../errors.ts';

type Tool = { gitCommit: string | null };

/** Refuses the inputs (results, bisection reports) made from a modified checkout, all named at once, unless allowed. */
export function refuseModifiedCheckouts(
  inputs: readonly (
    { source: string; result: { tool: Tool } } | { source: string; bisection: { tool: Tool } }
  )[],
  allowDirty: boolean,
): void {
  if (allowDirty) return;
  const toolOf = (i: (typeof inputs)[number]): Tool => ('result' in i ? i.result.tool : i.bisection.tool);
  const dirty = inputs.filter((i) => fromModifiedCheckout(toolOf(i)));
  if (dirty.length === 0) return;
  throw new RbError(
    'RESULT_DIRTY_TOOL',
    `nothing was published: ${dirty.length} of ${inputs.length} file(s) were measured by runtime-bench from a checkout with uncommitted changes\n${dirty
      .map((i) => `${i.source}: tool.gitCommit ${toolOf(i).gitCommit}`)
      .join('\n')}`,
    'commit (or stash) the changes to runtime-bench and run the benchmark again from the clean checkout; ' +
      'to publish these anyway, marked on the site as from a modified checkout, pass --allow-dirty',
  );
}
