// The addresses of a link, read from `ip -4 -o addr show dev <link>` (one line per address).
import { describe, expect, test } from 'vitest';
import { parseIpv4Addresses } from '../../../src/util/net-link.ts';

describe('parseIpv4Addresses', () => {
  test('every inet address of the output, in its order, with its prefix length', () => {
    const text = [
      '7: rb-x    inet 10.233.7.1/24 brd 10.233.7.255 scope global rb-x\\       valid_lft forever preferred_lft forever',
      '7: rb-x    inet 10.233.7.9/32 scope global secondary rb-x\\       valid_lft forever preferred_lft forever',
      '',
    ].join('\n');
    expect(parseIpv4Addresses(text)).toEqual(['10.233.7.1/24', '10.233.7.9/32']);
  });

  test('a link without an address (a bridge just made): none', () => {
    expect(parseIpv4Addresses('')).toEqual([]);
  });

  test('inet6 lines and the broadcast address are not taken for addresses', () => {
    const text =
      '2: eth0    inet6 fe80::1/64 scope link \\       valid_lft forever preferred_lft forever\n' +
      '2: eth0    inet 192.168.1.5/16 brd 192.168.255.255 scope global eth0\\       valid_lft forever';
    expect(parseIpv4Addresses(text)).toEqual(['192.168.1.5/16']);
  });
});
