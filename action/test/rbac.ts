// What the cluster mode asks of the API server, read from the runner's Kubernetes code (every
// client call and watch path), and what examples/cluster-rbac.yaml grants: the test keeps the
// two equal, and the act check asks the real API server whether the role allows each call.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const repoRoot = join(import.meta.dirname, '../..');
export const RBAC_FILE = join(repoRoot, 'examples/cluster-rbac.yaml');
const KUBERNETES_SRC = join(repoRoot, 'runner/src/kubernetes');

/** One permission: "group resource[/subresource] verb" (group "" is the core API). */
export interface Permission {
  group: string;
  resource: string;
  subresource?: string;
  verb: string;
}
export const permissionKey = (p: Permission): string =>
  `${p.group || 'core'} ${p.resource}${p.subresource ? `/${p.subresource}` : ''} ${p.verb}`;

const VERBS: Record<string, string> = {
  read: 'get',
  list: 'list',
  create: 'create',
  delete: 'delete',
  deleteCollection: 'deletecollection',
  patch: 'patch',
  replace: 'update',
  connectGet: 'get',
};
const GROUPS: Record<string, string> = {
  Pod: '',
  Namespace: '',
  Node: '',
  ServiceAccount: '',
  ConfigMap: '',
  Event: '',
  RuntimeClass: 'node.k8s.io',
};
const SUBRESOURCES: Record<string, string> = {
  Log: 'log',
  ProxyWithPath: 'proxy',
  Proxy: 'proxy',
  Status: 'status',
};
const plural = (kind: string): string => kind.toLowerCase() + (kind.endsWith('s') ? 'es' : 's');

/**
 * A client method (`readNamespacedPodLog`, `connectGetNodeProxyWithPath`, `createRuntimeClass`)
 * as the permission it needs. Throws on a method it cannot place: the mapping must learn it.
 */
export function methodPermission(method: string): Permission {
  const m =
    /^(read|list|create|deleteCollection|delete|patch|replace|connectGet)(Namespaced)?(\w+?)(Log|ProxyWithPath|Proxy|Status)?$/.exec(
      method,
    );
  const kind = m?.[3];
  if (!m || !kind || !(kind in GROUPS))
    throw new Error(
      `client call ${method}: unknown to action/test/rbac.ts; add its kind, verb or subresource`,
    );
  return {
    group: GROUPS[kind]!,
    resource: plural(kind),
    ...(m[4] ? { subresource: SUBRESOURCES[m[4]]! } : {}),
    verb: VERBS[m[1]!]!,
  };
}

/** Every permission the runner's Kubernetes code needs, from its source text. */
export function requiredPermissions(sources: readonly string[]): Permission[] {
  const out = new Map<string, Permission>();
  const add = (p: Permission) => out.set(permissionKey(p), p);
  for (const text of sources) {
    // Calls on the typed API clients (CoreV1Api as `core`, NodeV1Api as `nodeApi`).
    for (const m of text.matchAll(/\b(?:core|nodeApi)\.(\w+)\(/g)) add(methodPermission(m[1]!));
    // Watches: `watch.watch('/api/v1/namespaces/${ns}/pods', …)` needs "watch" on that resource.
    for (const m of text.matchAll(/\bwatch\.watch\(\s*[`'"]([^`'"]+)[`'"]/g)) {
      const path = /^\/api\/v1\/(?:namespaces\/[^/]+\/)?([a-z]+)$/.exec(m[1]!);
      if (!path) throw new Error(`watch of ${m[1]}: unknown to action/test/rbac.ts`);
      add({ group: '', resource: path[1]!, verb: 'watch' });
    }
    // The kubelet asked directly for /metrics with the kubeconfig's credentials: nodes/metrics.
    if (/https\.request\(/.test(text) && /path: '\/metrics'/.test(text))
      add({ group: '', resource: 'nodes', subresource: 'metrics', verb: 'get' });
  }
  return [...out.values()].sort((a, b) => permissionKey(a).localeCompare(permissionKey(b)));
}

export async function kubernetesSources(): Promise<string[]> {
  const files = (await readdir(KUBERNETES_SRC)).filter((f) => f.endsWith('.ts'));
  return Promise.all(files.map((f) => readFile(join(KUBERNETES_SRC, f), 'utf8')));
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The objects of examples/cluster-rbac.yaml. */
export async function rbacObjects(): Promise<Record<string, unknown>[]> {
  return parseAllDocuments(await readFile(RBAC_FILE, 'utf8')).map((d) => d.toJS() as Record<string, unknown>);
}

/** Every permission the ClusterRole grants, spelled out (no wildcards allowed). */
export function grantedPermissions(objects: readonly Record<string, unknown>[]): Permission[] {
  const role = objects.find((o) => o.kind === 'ClusterRole') as { rules: Rule[] } | undefined;
  if (!role) throw new Error('examples/cluster-rbac.yaml has no ClusterRole');
  const out: Permission[] = [];
  for (const rule of role.rules)
    for (const group of rule.apiGroups)
      for (const r of rule.resources)
        for (const verb of rule.verbs) {
          const [resource, subresource] = r.split('/');
          out.push({ group, resource: resource!, ...(subresource ? { subresource } : {}), verb });
        }
  return out.sort((a, b) => permissionKey(a).localeCompare(permissionKey(b)));
}
