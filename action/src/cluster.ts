// The action's cluster mode: a kubeconfig (the content, from a secret) instead of a local stack.
// Checking the kubeconfig without ever repeating its text, the values to mask in the log, and the
// `runtime-bench run` config with one kubernetes target. Pure.
import { isMap, parseDocument } from 'yaml';
import { ConfigSchema, type Config } from '@runtime-bench/schemas';
import { RbError, parseWithFriendlyErrors } from '@runtime-bench/runner';
import type { ActionInputs } from './inputs.ts';

/** Cluster mode is on when the kubeconfig input holds anything but blanks. */
export const clusterMode = (inputs: ActionInputs): boolean => inputs.kubeconfig.trim() !== '';

const KUBECONFIG_HINT =
  'pass the content of a kubeconfig file from a secret (with: kubeconfig: <the secret>), not a path';

/**
 * Checks that the kubeconfig input is a kubeconfig: a YAML mapping with at least one cluster.
 * Errors name the input and at most a line number, never the text (a secret).
 */
export function checkKubeconfig(content: string): void {
  const doc = parseDocument(content);
  if (doc.errors.length > 0) {
    const line = doc.errors[0]!.linePos?.[0]?.line;
    throw new RbError(
      'USAGE_INPUT',
      `action inputs: kubeconfig: not valid YAML${line ? ` (line ${line})` : ''}`,
      KUBECONFIG_HINT,
    );
  }
  const value: unknown = doc.toJS();
  if (!isMap(doc.contents) || typeof value !== 'object' || value === null)
    throw new RbError(
      'USAGE_INPUT',
      `action inputs: kubeconfig: not a kubeconfig (a YAML mapping with clusters, users and contexts)${/^\s*[~./]\S*\s*$/.test(content) ? '; it looks like a file path' : ''}`,
      KUBECONFIG_HINT,
    );
  const clusters = (value as Record<string, unknown>).clusters;
  if (!Array.isArray(clusters) || clusters.length === 0)
    throw new RbError(
      'USAGE_INPUT',
      'action inputs: kubeconfig: names no cluster (its "clusters" list is missing or empty)',
      KUBECONFIG_HINT,
    );
}

/** Keys of a kubeconfig whose values are credentials. */
const CREDENTIAL_KEYS = new Set([
  'token',
  'client-key-data',
  'client-certificate-data',
  'password',
  'id-token',
  'refresh-token',
  'client-secret',
  'access-token',
]);

/**
 * What the log must never show: the whole kubeconfig and, each on its own, every credential in
 * it (a mask of the whole text does not catch a credential printed alone).
 */
export function kubeconfigSecrets(content: string): string[] {
  const out = new Set<string>([content.trim()]);
  const visit = (node: unknown, key: string | null): void => {
    if (Array.isArray(node)) node.forEach((n) => visit(n, null));
    else if (node && typeof node === 'object')
      for (const [k, v] of Object.entries(node as Record<string, unknown>)) visit(v, k);
    else if (typeof node === 'string' && key !== null && CREDENTIAL_KEYS.has(key) && node.trim() !== '')
      out.add(node.trim());
  };
  const doc = parseDocument(content);
  if (doc.errors.length === 0) visit(doc.toJS(), null);
  // Unparsable (the up step rejects it): which value is a credential is unknown, so every line.
  else for (const line of content.split('\n')) if (line.trim().length >= 8) out.add(line.trim());
  return [...out].filter((s) => s !== '');
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const list = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** `runc rb-crun=crun`: existing RuntimeClasses by name, or name=handler to have the run create one. */
export function parseRuntimeClasses(text: string): { name: string; handler?: string }[] {
  const out: { name: string; handler?: string }[] = [];
  for (const item of list(text)) {
    const [name = '', handler, ...rest] = item.split('=');
    if (!DNS_LABEL.test(name) || rest.length > 0 || handler === '')
      throw new RbError(
        'USAGE_INPUT',
        `action inputs: runtime-classes: "${item}" is not a RuntimeClass (a name of lower-case letters, digits and "-", optionally =handler)`,
        'write name for an existing RuntimeClass, or name=handler to have the run create it, e.g. "runc rb-crun=crun"',
      );
    if (out.some((c) => c.name === name))
      throw new RbError(
        'USAGE_INPUT',
        `action inputs: runtime-classes: "${name}" is named twice`,
        'name each RuntimeClass once',
      );
    out.push(handler === undefined ? { name } : { name, handler });
  }
  return out;
}

/** `all`, a label selector (it has =, !, / or parentheses) or node names. Empty: the config's, else all. */
export function parseNodes(text: string): 'all' | { selector: string } | { names: string[] } | null {
  const t = text.trim();
  if (t === '') return null;
  if (t === 'all') return 'all';
  if (/[=!/()]/.test(t)) return { selector: t };
  const names = list(t);
  const bad = names.find((n) => !DNS_LABEL.test(n));
  if (bad !== undefined)
    throw new RbError(
      'USAGE_INPUT',
      `action inputs: nodes: "${bad}" is neither a node name (lower-case letters, digits and "-") nor a label selector`,
      'give all, a label selector such as pool=bench, or node names separated by spaces',
    );
  return { names };
}

/**
 * The run config of the cluster mode: the user's config with its kubernetes target (if any; its
 * other targets are dropped, a kubernetes target runs alone), the inputs applied over it, and the
 * kubeconfig file the action wrote. Without benchmarks anywhere it runs the kubernetes ones.
 */
export function buildClusterConfig(base: unknown, inputs: ActionInputs, kubeconfigPath: string): Config {
  const user = (base ?? {}) as Record<string, unknown>;
  if (typeof user !== 'object' || Array.isArray(user))
    throw new RbError('CONFIG_INVALID', `${inputs.config}: a config is a YAML mapping`);
  const targets = Array.isArray(user.targets) ? (user.targets as Record<string, unknown>[]) : [];
  const own = targets.find((t) => t && typeof t === 'object' && t.kind === 'kubernetes') ?? {};
  const classes = parseRuntimeClasses(inputs['runtime-classes']);
  const nodes = parseNodes(inputs.nodes);
  const target: Record<string, unknown> = {
    ...own,
    kind: 'kubernetes',
    kubeconfig: kubeconfigPath,
    ...(classes.length > 0 ? { runtimeClasses: classes } : {}),
    ...(nodes !== null ? { nodes } : {}),
    ...(inputs.image ? { image: inputs.image } : {}),
    ...(inputs['image-pull-policy'] ? { imagePullPolicy: inputs['image-pull-policy'] } : {}),
  };
  if (!Array.isArray(target.runtimeClasses) || target.runtimeClasses.length === 0)
    throw new RbError(
      'USAGE_INPUT',
      'action inputs: runtime-classes: cluster mode needs the RuntimeClasses to compare',
      `set runtime-classes, e.g. "runc rb-crun=crun", or give a kubernetes target in ${inputs.config || 'a config'}`,
    );
  const merged = {
    ...user,
    ...(inputs.suites
      ? { benchmarks: list(inputs.suites) }
      : user.benchmarks === undefined
        ? { benchmarks: ['kubernetes'] }
        : {}),
    ...(inputs.runs ? { runs: Number(inputs.runs) } : {}),
    targets: [target],
  };
  return parseWithFriendlyErrors(ConfigSchema, merged, inputs.config || 'the action inputs', {
    code: 'CONFIG_INVALID',
  });
}
