// examples/cluster-rbac.yaml grants exactly what runner/src/kubernetes/ calls: a new client call
// there fails this test until the role (and its comment) says why it is needed.
import { describe, expect, test } from 'vitest';
import {
  grantedPermissions,
  kubernetesSources,
  methodPermission,
  permissionKey,
  rbacObjects,
  requiredPermissions,
} from './rbac.ts';

describe('examples/cluster-rbac.yaml', () => {
  test('grants exactly the calls of runner/src/kubernetes/, no wildcard', async () => {
    const objects = await rbacObjects();
    const granted = grantedPermissions(objects).map(permissionKey);
    expect(granted.some((k) => k.includes('*'))).toBe(false);
    expect(granted).toEqual(requiredPermissions(await kubernetesSources()).map(permissionKey));
  });

  test('binds the ClusterRole to the ServiceAccount it creates', async () => {
    const objects = (await rbacObjects()) as {
      kind: string;
      metadata: { name: string; namespace?: string };
      roleRef?: { kind: string; name: string };
      subjects?: { kind: string; name: string; namespace: string }[];
    }[];
    const sa = objects.find((o) => o.kind === 'ServiceAccount')!;
    const role = objects.find((o) => o.kind === 'ClusterRole')!;
    const binding = objects.find((o) => o.kind === 'ClusterRoleBinding')!;
    expect(objects.some((o) => o.kind === 'Namespace' && o.metadata.name === sa.metadata.namespace)).toBe(
      true,
    );
    expect(binding.roleRef).toMatchObject({ kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace },
    ]);
  });

  test('the scan reads client calls, watches and direct kubelet requests', () => {
    const source = `
      await this.core.readNamespacedPodLog({ name });
      await cluster.nodeApi.deleteRuntimeClass({ name });
      const t = await this.core.connectGetNodeProxyWithPath({ name, path: 'metrics' });
      this.watch.watch(\`/api/v1/namespaces/\${this.namespace}/pods\`, {}, cb, done);
      const opts = { host: '127.0.0.1', path: '/metrics' }; https.request(opts);`;
    expect(requiredPermissions([source]).map(permissionKey)).toEqual([
      'core nodes/metrics get',
      'core nodes/proxy get',
      'core pods watch',
      'core pods/log get',
      'node.k8s.io runtimeclasses delete',
    ]);
    expect(methodPermission('listNamespace')).toEqual({ group: '', resource: 'namespaces', verb: 'list' });
    expect(() => methodPermission('createNamespacedSecret')).toThrow(/unknown to action\/test\/rbac\.ts/);
  });
});
