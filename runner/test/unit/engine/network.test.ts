// The pure parts of engine.network.throughput: the private network's plan (name, bridge, a subnet
// no route of the host overlaps, the bridge renamed in the file the engine wrote), the published
// run's arguments, the listener check in /proc/<pid>/net/tcp, and which iptables chains a CNI
// network leaves that the teardown removes. Expectations are written out by hand from the inputs.
import { describe, expect, test } from 'vitest';
import { leftoverCommands, parseIptablesSave, splitRule } from '../../../src/engine/iptables-leftovers.ts';
import { listensOn } from '../../../src/engine/network-bench.ts';
import {
  freeSubnet,
  parseRoutes,
  planEngineNetwork,
  renameBridge,
} from '../../../src/engine/network-plan.ts';
import { planEngine, runArgs } from '../../../src/engine/plan.ts';

// This host's /proc/net/route: a default route via 192.0.2.1 and 192.0.2.0/24 on eth0.
const ROUTES = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
`;
// 10.213.0.0/24 and 10.213.1.0/24 taken (bytes 0A D5 00 00 printed as a little-endian number).
const TAKEN = `${ROUTES}br0\t0000D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
br1\t0001D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
`;

describe('private network plan', () => {
  test('routes: network and mask in host order, the default route left out', () => {
    expect(parseRoutes(ROUTES)).toEqual([[0xc0000200, 0xffffff00]]);
  });

  test('subnet: from the target index on, skipping what routes overlap', () => {
    expect(freeSubnet(ROUTES, 0)).toBe('10.213.0.0/24');
    expect(freeSubnet(ROUTES, 2)).toBe('10.213.2.0/24');
    expect(freeSubnet(TAKEN, 0)).toBe('10.213.2.0/24');
    // A /8 route over all of 10.0.0.0 leaves nothing.
    const wide = `${ROUTES}eth1\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n`;
    expect(() => freeSubnet(wide, 0)).toThrow(/no free \/24/);
  });

  test('docker names the bridge by its driver option; podman and nerdctl get their file edited', () => {
    const docker = planEngineNetwork('docker', '0123abcd', '0', '10.213.0.0/24', null);
    expect(docker.createArgs).toEqual([
      'network',
      'create',
      '--driver',
      'bridge',
      '--subnet',
      '10.213.0.0/24',
      '--opt',
      'com.docker.network.bridge.name=rb0123abcd0',
      'rb-0123abcd-0',
    ]);
    expect(docker.configDir).toBeNull();
    expect(docker.leftovers).toEqual([]);
    const podman = planEngineNetwork('podman', '0123abcd', '1', '10.213.1.0/24', '/r/1/net');
    expect(podman.createArgs.at(-1)).toBe('rb-0123abcd-1');
    expect(podman.createArgs).not.toContain('--opt');
    expect(podman.configDir).toBe('/r/1/net');
    expect(podman.removeArgs).toEqual(['network', 'rm', 'rb-0123abcd-1']);
    expect(podman.leftovers).toEqual(['/var/lib/cni/networks/rb-0123abcd-1']);
    expect(podman.bridge.length).toBeLessThanOrEqual(15);
  });

  test('renameBridge: a CNI conflist, a netavark file, anything else untouched', () => {
    const conflist = JSON.stringify({
      name: 'n',
      plugins: [{ type: 'bridge', bridge: 'cni-podman1' }, { type: 'portmap' }],
    });
    expect(JSON.parse(renameBridge(conflist, 'rbX0')!)).toEqual({
      name: 'n',
      plugins: [{ type: 'bridge', bridge: 'rbX0' }, { type: 'portmap' }],
    });
    const netavark = JSON.stringify({ name: 'n', driver: 'bridge', network_interface: 'podman1' });
    expect(JSON.parse(renameBridge(netavark, 'rbX0')!).network_interface).toBe('rbX0');
    expect(renameBridge(JSON.stringify({ name: 'n', plugins: [{ type: 'macvlan' }] }), 'rbX0')).toBeNull();
  });

  test('published run: the private network, a name, the port on 127.0.0.1 only', () => {
    const plan = planEngine({
      engine: 'docker',
      cli: '/usr/bin/docker',
      daemon: '/usr/sbin/dockerd',
      root: '/var/lib/runtime-bench/e/0123abcd/0',
      runId: '20261126T212748Z-0123abcd',
      runtimes: [{ name: 'runc', binary: '/usr/sbin/runc' }],
      ulimits: { nofile: 1024, nproc: 1024 },
      path: '/usr/bin',
    });
    const args = runArgs(plan, 'runc', 'img', ['/bin/nc'], 'r1', undefined, {
      network: 'rb-0123abcd-0',
      name: 'c1',
      hostPort: 40001,
      containerPort: 5201,
    });
    expect(args.slice(2, 12)).toEqual([
      'run',
      '--rm',
      '--runtime',
      'runc',
      '--network',
      'rb-0123abcd-0',
      '--name',
      'c1',
      '--publish',
      '127.0.0.1:40001:5201',
    ]);
    expect(args).not.toContain('none');
  });
});

test('listensOn: a LISTEN socket (st 0A) on the port, IPv4 or IPv6, nothing else', () => {
  const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1451 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1452 0100007F:A001 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 20 4 30 10 -1
`;
  expect(listensOn(tcp, 5201)).toBe(true); // 0x1451
  expect(listensOn(tcp, 5202)).toBe(false); // 0x1452 is an established connection
  const tcp6 = `  sl  local_address                         remote_address                        st
   0: 00000000000000000000000000000000:1451 00000000000000000000000000000000:0000 0A 00000000:00000000
`;
  expect(listensOn(tcp6, 5201)).toBe(true);
  expect(listensOn('header only\n', 5201)).toBe(false);
});

// iptables-save of this host after Podman's CNI network was torn down (its shared chains stay).
const EMPTY = '';
const AFTER = `# Generated by iptables-save v1.8.9 (nf_tables)
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:CNI-HOSTPORT-MASQ - [0:0]
:CNI-HOSTPORT-SETMARK - [0:0]
-A POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" -j CNI-HOSTPORT-MASQ
-A CNI-HOSTPORT-MASQ -m mark --mark 0x2000/0x2000 -j MASQUERADE
-A CNI-HOSTPORT-SETMARK -m comment --comment "CNI portfwd masquerade mark" -j MARK --set-xmark 0x2000/0x2000
COMMIT
`;

describe('iptables leftovers of a CNI network', () => {
  test('splitRule: quoted comments are one argument', () => {
    expect(splitRule('-A POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" -j X')).toEqual([
      '-A',
      'POSTROUTING',
      '-m',
      'comment',
      '--comment',
      'CNI portfwd requiring masquerade',
      '-j',
      'X',
    ]);
    expect(splitRule('-A C -m comment --comment "a \\"b\\"" -j Y')).toEqual([
      '-A',
      'C',
      '-m',
      'comment',
      '--comment',
      'a "b"',
      '-j',
      'Y',
    ]);
  });

  test('parse: user chains (policy "-") and rules per table', () => {
    const t = parseIptablesSave(AFTER);
    expect([...t.keys()]).toEqual(['filter', 'nat']);
    expect([...t.get('nat')!.chains]).toEqual(['CNI-HOSTPORT-MASQ', 'CNI-HOSTPORT-SETMARK']);
    expect(t.get('nat')!.rules).toHaveLength(3);
  });

  test('the shared chains the run made: the jump, then flush and delete', () => {
    expect(leftoverCommands(EMPTY, AFTER)).toEqual([
      [
        '-t',
        'nat',
        '-D',
        'POSTROUTING',
        '-m',
        'comment',
        '--comment',
        'CNI portfwd requiring masquerade',
        '-j',
        'CNI-HOSTPORT-MASQ',
      ],
      ['-t', 'nat', '-F', 'CNI-HOSTPORT-MASQ'],
      ['-t', 'nat', '-F', 'CNI-HOSTPORT-SETMARK'],
      ['-t', 'nat', '-X', 'CNI-HOSTPORT-MASQ'],
      ['-t', 'nat', '-X', 'CNI-HOSTPORT-SETMARK'],
    ]);
  });

  test('chains that were there before stay', () => {
    expect(leftoverCommands(AFTER, AFTER)).toEqual([]);
  });

  test("another user's live port mapping: the table is left as it is", () => {
    const live = AFTER.replace(
      ':CNI-HOSTPORT-SETMARK - [0:0]',
      ':CNI-HOSTPORT-SETMARK - [0:0]\n:CNI-HOSTPORT-DNAT - [0:0]\n:CNI-DN-abc - [0:0]',
    ).replace(
      '-A CNI-HOSTPORT-MASQ',
      [
        '-A OUTPUT -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT',
        '-A CNI-HOSTPORT-DNAT -p tcp -m comment --comment "dnat name: \\"n\\" id: \\"c1\\"" -j CNI-DN-abc',
        '-A CNI-DN-abc -s 127.0.0.1/32 -p tcp -m tcp --dport 40001 -j CNI-HOSTPORT-SETMARK',
        '-A CNI-DN-abc -p tcp -m tcp --dport 40001 -j DNAT --to-destination 10.213.1.2:5201',
        '-A CNI-HOSTPORT-MASQ',
      ].join('\n'),
    );
    // The mapping needs SETMARK and MASQ too (localhost traffic is masqueraded): nothing goes.
    expect(leftoverCommands(EMPTY, live)).toEqual([]);
    // The same chains without the mapping's DNAT and its address match are all removed.
    const dead = live
      .split('\n')
      .filter((l) => !l.startsWith('-A CNI-DN-abc'))
      .join('\n');
    expect(leftoverCommands(EMPTY, dead).filter((c) => c[2] === '-X')).toHaveLength(4);
    // A live container's masquerade: its /32 match is in POSTROUTING, the chain it jumps to is new.
    const masq = AFTER.replace(
      ':CNI-HOSTPORT-SETMARK - [0:0]',
      ':CNI-HOSTPORT-SETMARK - [0:0]\n:CNI-4f1e - [0:0]\n-A POSTROUTING -s 10.88.0.5/32 -j CNI-4f1e\n-A CNI-4f1e ! -d 224.0.0.0/4 -j MASQUERADE',
    );
    expect(leftoverCommands(EMPTY, masq)).toEqual([]);
  });
});
