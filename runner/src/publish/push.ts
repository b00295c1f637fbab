// Reading `git push --porcelain` and spacing out retries: pure functions, so the race handling
// can be tested on its own and the orchestration stays a loop.

export type PushOutcome =
  | { kind: 'pushed' }
  /** Someone else moved the branch first: fetch, replay our additions, try again. */
  | { kind: 'rejected'; reason: string }
  /** The remote refused for a reason retrying cannot fix (a hook, branch protection, permissions). */
  | { kind: 'refused'; reason: string }
  /** No ref status at all: the remote could not be reached or git failed before pushing. */
  | { kind: 'failed'; reason: string };

/** Remote-side refusals that are races on the ref, not policy: retried like a rejection. */
const TRANSIENT_REMOTE_REJECTION = /lock|failed to update ref|incorrect old value|reference already exists/i;

/**
 * Classifies the result of `git push --porcelain <remote> <commit>:refs/heads/<branch>` for one ref.
 * Porcelain status lines are `<flag>\t<from>:<to>\t<summary>`, flag `!` for a rejected ref.
 */
export function classifyPush(exitCode: number, stdout: string, stderr: string): PushOutcome {
  const status = stdout
    .split('\n')
    .map((line) => line.split('\t'))
    .find(
      (fields) =>
        fields.length >= 3 && /^[ +\-*!=]$/.test(fields[0] ?? '') && (fields[1] ?? '').includes(':'),
    );
  if (status) {
    const [flag, , summary = ''] = status;
    if (flag !== '!') {
      // A ref that was updated or already up to date is a success even if a hook printed errors.
      return { kind: 'pushed' };
    }
    if (summary.startsWith('[rejected]')) return { kind: 'rejected', reason: summary };
    if (summary.startsWith('[remote rejected]') && TRANSIENT_REMOTE_REJECTION.test(summary)) {
      return { kind: 'rejected', reason: summary };
    }
    return { kind: 'refused', reason: summary };
  }
  if (exitCode === 0) return { kind: 'pushed' };
  return { kind: 'failed', reason: tail(stderr) || `git push exited with code ${exitCode}` };
}

/**
 * Delay before retry number `attempt` (1 = after the first failure): exponential with "equal
 * jitter" — half fixed, half random — so racers spread out but none retries immediately.
 */
export function backoffMs(attempt: number, random: () => number, baseMs = 200, maxMs = 3000): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/** The last few non-empty lines of command output, for error messages. */
export function tail(text: string, lines = 5): string {
  return text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-lines)
    .join('\n');
}
