// The `runtime-bench run` config the action uses: the user's config (or defaults), shortcuts
// applied, and one target on the action's stack with exactly the installed handlers. Pure.
import { ConfigSchema, type Config } from '@runtime-bench/schemas';
import { RbError, parseWithFriendlyErrors } from '@runtime-bench/runner';
// The install record's type comes from the runner's "./install" entry.
import { handlerName, parseSpecList, type InstallRecord } from '@runtime-bench/runner/install';
import type { ActionInputs } from './inputs.ts';
import { criVersion } from './cri.ts';

/** The name part that stands for a version the action resolves afresh every night. */
const MOVING = 'latest';
export const isMoving = (version: string): boolean => version === '' || version === MOVING;

export type Handler = InstallRecord['handlers'][number];

/** What the run config adds for a side-by-side version change (side-by-side.ts). */
export interface SideBySide {
  /** The previous versions' handlers, from their own install record. */
  handlers: Handler[];
  /** Handler names: before = the previous version's, after = tonight's (e.g. runc-latest). */
  pairs: { before: string; after: string }[];
}

export const NO_SIDE_BY_SIDE: SideBySide = { handlers: [], pairs: [] };

/** The name of the action's one target: `<cri>-latest` for a moving CRI version, else `<cri>-<version>`. */
export function targetName(inputs: ActionInputs, record: InstallRecord): string {
  return `${inputs.cri}-${isMoving(inputs['cri-version']) ? MOVING : (criVersion(inputs, record) ?? 'installed')}`;
}

export function buildRunConfig(
  base: unknown,
  inputs: ActionInputs,
  record: InstallRecord,
  beside: SideBySide = NO_SIDE_BY_SIDE,
): Config {
  const user = (base ?? {}) as Record<string, unknown>;
  if (typeof user !== 'object' || Array.isArray(user)) {
    throw new RbError('CONFIG_INVALID', `${inputs.config}: a config is a YAML mapping`);
  }
  const installed = [...nightlyHandlers(inputs, record), ...beside.handlers];
  const handlers = installed.map((h) => h.name);
  if (handlers.length === 0) {
    throw new RbError(
      'USAGE_INPUT',
      'oci-runtimes installed no OCI runtime',
      'name at least one, e.g. runc@1.3.6',
    );
  }
  const stack = (user.stack ?? {}) as Record<string, unknown>;
  const name = targetName(inputs, record);
  const merged = {
    ...user,
    // The previous version beside tonight's: the pair declared for check, each round in a random
    // order (the paired test's assumption).
    ...(beside.pairs.length
      ? {
          roundOrder: 'shuffled',
          versionChanges: beside.pairs.map((p) => ({
            before: `${name}/${p.before}`,
            after: `${name}/${p.after}`,
          })),
        }
      : {}),
    ...(inputs.suites ? { benchmarks: inputs.suites.split(/[\s,]+/).filter(Boolean) } : {}),
    ...(inputs.runs ? { runs: Number(inputs.runs) } : {}),
    targets: [
      {
        name,
        cri: inputs.cri,
        stack: inputs['stack-name'],
        handlers,
        transport: inputs['cri-client'],
        ...(record.crictl ? { crictl: record.crictl } : {}),
      },
    ],
    stack: { ...stack, extraHandlers: [...((stack.extraHandlers as unknown[]) ?? []), ...installed] },
  };
  return parseWithFriendlyErrors(ConfigSchema, merged, inputs.config || 'the action inputs', {
    code: 'CONFIG_INVALID',
  });
}

/**
 * The installed handlers, those asked for at a moving version (`runc`, `runc@latest`) named
 * `<runtime>-latest` instead of after the version they resolved to. A nightly keeps one target
 * across releases that way, so its history continues and the gate attributes a change to the
 * version bump (the result still records the version); a pinned version (a reference handler
 * such as runc@1.2.6) keeps its versioned name. Renamed only when the moving request is the
 * runtime's one handler not accounted for by a pinned version, so no two handlers can swap names.
 */
export function nightlyHandlers(inputs: ActionInputs, record: InstallRecord): Handler[] {
  // The install step parsed these specs already, so a bad one never gets here.
  const requests = parseSpecList(inputs['oci-runtimes']);
  const kindOf = (h: Handler): string => h.kind ?? h.name.replace(/-[^-]*$/, '');
  const renamed = new Set<Handler>();
  for (const kind of new Set(record.handlers.map(kindOf))) {
    const own = requests.filter((r) => r.name === kind);
    if (own.some((r) => r.path !== null)) continue;
    const moving = own.filter((r) => r.version === null || isMoving(r.version));
    const pinnedNames = own
      .filter((r) => r.version !== null && !isMoving(r.version))
      .map((r) => handlerName(kind, r.version!));
    const unpinned = record.handlers.filter((h) => kindOf(h) === kind && !pinnedNames.includes(h.name));
    if (moving.length === 1 && unpinned.length === 1) renamed.add(unpinned[0]!);
  }
  return record.handlers.map((h) => (renamed.has(h) ? { ...h, name: `${kindOf(h)}-${MOVING}` } : h));
}
