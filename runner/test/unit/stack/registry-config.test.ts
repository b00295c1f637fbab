import { describe, expect, test } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import {
  parseRegistryVersion,
  registryAddress,
  registryPaths,
  renderContainerdHosts,
  renderRegistriesConf,
  renderRegistryConfig,
} from '../../../src/stack/registry-config.ts';

describe("a stack's registry", () => {
  test('every path is below <state dir>/registry', () => {
    const paths = registryPaths('/var/lib/runtime-bench/stacks/s');
    for (const p of Object.values(paths))
      expect(p.startsWith('/var/lib/runtime-bench/stacks/s/registry')).toBe(true);
  });

  test('the registry config binds loopback only and stores below the stack', () => {
    const doc = parseYaml(renderRegistryConfig({ storageDir: '/s/registry/storage' }, 45123)) as {
      version: number;
      http: { addr: string; net: string };
      storage: { filesystem: { rootdirectory: string }; delete: { enabled: boolean } };
    };
    expect(doc.version).toBe(0.1);
    expect(doc.http).toEqual({ addr: '127.0.0.1:45123', net: 'tcp' });
    expect(doc.storage.filesystem.rootdirectory).toBe('/s/registry/storage');
    expect(doc.storage.delete.enabled).toBe(true);
  });

  test('a port outside 1..65535 is a bug, not an address', () => {
    expect(() => registryAddress(0)).toThrow(RangeError);
    expect(() => registryAddress(70000)).toThrow(RangeError);
    expect(registryAddress(5000)).toBe('127.0.0.1:5000');
  });

  test("containerd's hosts.toml: plain HTTP to that host, pull and resolve only", () => {
    const hosts = renderContainerdHosts('127.0.0.1:45123');
    expect(hosts.dir).toBe('127.0.0.1:45123');
    const doc = parseToml(hosts.content) as {
      server: string;
      host: Record<string, { capabilities: string[] }>;
    };
    expect(doc.server).toBe('http://127.0.0.1:45123');
    expect(doc.host['http://127.0.0.1:45123']!.capabilities).toEqual(['pull', 'resolve']);
  });

  test('registries.conf: no search registries; the stack registry insecure when there is one', () => {
    const none = parseToml(renderRegistriesConf(null)) as Record<string, unknown>;
    expect(none).toEqual({ 'unqualified-search-registries': [] });
    const one = parseToml(renderRegistriesConf('127.0.0.1:45123')) as {
      registry: { location: string; insecure: boolean }[];
    };
    expect(one.registry).toEqual([{ location: '127.0.0.1:45123', insecure: true }]);
  });

  test('version from docker-registry --version', () => {
    expect(parseRegistryVersion('docker-registry github.com/docker/distribution 2.8.2+ds1\n')).toBe('2.8.2');
    expect(parseRegistryVersion('registry github.com/distribution/distribution/v3 v3.0.0')).toBe('3.0.0');
    expect(parseRegistryVersion('garbage')).toBeNull();
  });
});
