// What a result's `tool.gitCommit` says of the checkout runtime-bench ran from. Free of zod: the
// CLI reads it at startup (runner/src/version.ts) through the `@runtime-bench/schemas/tool` entry.

/**
 * What the tool's commit is suffixed with when its checkout had uncommitted changes (toolRecord in
 * runner/src/version.ts): such a result was measured by code that no commit holds.
 */
export const DIRTY_COMMIT_SUFFIX = '+dirty';

/** Whether a result's tool ran from a modified checkout (its commit says "+dirty"). */
export function fromModifiedCheckout(tool: { gitCommit: string | null }): boolean {
  return tool.gitCommit?.endsWith(DIRTY_COMMIT_SUFFIX) ?? false;
}
