import { describe, expect, test } from 'vitest';
import { Lineages, type MeasuredTarget } from '../../src/lib/lineage.ts';

const t = (id: string, criVersion: string, ociVersion = '1.1.5', handler = 'runc'): MeasuredTarget => ({
  id,
  criName: 'containerd',
  criVersion,
  ociName: 'runc',
  ociVersion,
  handler,
  transport: 'grpc',
  kubernetes: null,
});

describe('Lineages', () => {
  test('a renamed target continues the lineage of the same containerd and runc', () => {
    const l = new Lineages();
    expect(l.assign('h', 0, [t('containerd-1.6/runc', '1.6.20'), t('containerd-2.1/runc', '2.1.9')])).toEqual(
      ['containerd-1.6/runc', 'containerd-2.1/runc'],
    );
    // the same two endpoints in the other order keep their own lines (label and versions match)
    expect(l.assign('h', 1, [t('containerd-2.1/runc', '2.1.9'), t('containerd-1.6/runc', '1.6.20')])).toEqual(
      ['containerd-2.1/runc', 'containerd-1.6/runc'],
    );
    // renamed: containerd 1.6.20 with runc 1.1.5 is what containerd-1.6/runc measured
    expect(l.assign('h', 2, [t('containerd/runc', '1.6.20')])).toEqual(['containerd-1.6/runc']);
    // a new runc version on the same handler is the same line, so its change can be seen
    expect(l.assign('h', 3, [t('containerd/runc', '1.6.20', '1.3.6')])).toEqual(['containerd-1.6/runc']);
  });

  test('another handler, CRI runtime or host class starts a lineage of its own', () => {
    const l = new Lineages();
    l.assign('h', 0, [t('a', '1.6.20')]);
    expect(l.assign('h', 1, [t('a', '1.6.20', '1.28', 'crun')])).toEqual(['a (2)']);
    expect(l.assign('other', 2, [t('a', '1.6.20')])).toEqual(['a']);
    expect(l.assign('h', 3, [{ ...t('a', '1.36.3'), criName: 'cri-o' }])).toEqual(['a (3)']);
  });

  test('a target sharing only the runc version starts its own line, so a later one keeps its name', () => {
    const l = new Lineages();
    l.assign('h', 0, [t('containerd-1.6/runc', '1.6.20'), t('containerd-2.1/runc', '2.1.9')]);
    // containerd 1.7.35 is neither line's label nor CRI version: not containerd-1.6/runc's history
    expect(
      l.assign('h', 1, [t('containerd-1.7.35/runc', '1.7.35'), t('containerd-2.1.9/runc', '2.1.9')]),
    ).toEqual(['containerd-1.7.35/runc', 'containerd-2.1/runc']);
    // a later containerd 1.6.20 continues the 1.6.20 line, not the 1.7.35 one
    expect(l.assign('h', 2, [t('containerd/runc', '1.6.20')])).toEqual(['containerd-1.6/runc']);
  });
});
