// The `runtime-bench run` config the action uses: the user's config (or defaults), shortcuts
// applied, and one target on the action's stack with exactly the installed handlers. Pure.
import { ConfigSchema, type Config } from '@runtime-bench/schemas';
import { RbError, parseWithFriendlyErrors } from '@runtime-bench/runner';
// The install record's type comes from the runner's "./install" entry.
import type { InstallRecord } from '@runtime-bench/runner/install';
import type { ActionInputs } from './inputs.ts';
import { criVersion } from './cri.ts';

export function buildRunConfig(base: unknown, inputs: ActionInputs, record: InstallRecord): Config {
  const user = (base ?? {}) as Record<string, unknown>;
  if (typeof user !== 'object' || Array.isArray(user)) {
    throw new RbError('CONFIG_INVALID', `${inputs.config}: a config is a YAML mapping`);
  }
  const handlers = record.handlers.map((h) => h.name);
  if (handlers.length === 0) {
    throw new RbError(
      'USAGE_INPUT',
      'oci-runtimes installed no OCI runtime',
      'name at least one, e.g. runc@1.3.6',
    );
  }
  const stack = (user.stack ?? {}) as Record<string, unknown>;
  const merged = {
    ...user,
    ...(inputs.suites ? { benchmarks: inputs.suites.split(/[\s,]+/).filter(Boolean) } : {}),
    ...(inputs.runs ? { runs: Number(inputs.runs) } : {}),
    targets: [
      {
        name: `${inputs.cri}-${criVersion(inputs, record) ?? 'installed'}`,
        cri: inputs.cri,
        stack: inputs['stack-name'],
        handlers,
        transport: inputs['cri-client'],
        ...(record.crictl ? { crictl: record.crictl } : {}),
      },
    ],
    stack: { ...stack, extraHandlers: [...((stack.extraHandlers as unknown[]) ?? []), ...record.handlers] },
  };
  return parseWithFriendlyErrors(ConfigSchema, merged, inputs.config || 'the action inputs', {
    code: 'CONFIG_INVALID',
  });
}
