// Certificates of the local test cluster, made by the host's openssl (≥ 3.0 for `req -CA`):
// a CA, the apiserver's serving certificate for 127.0.0.1/localhost, one admin client
// certificate in system:masters that every component uses, and the service-account key pair.
// P-256 keys: fast to make, accepted by every component.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exec } from '../util/exec.ts';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function signed(dir: string, name: string, subject: string, extensions: string[]): Promise<void> {
  await exec('openssl', [
    'req',
    '-x509',
    ...EC,
    '-days',
    '30',
    '-subj',
    subject,
    '-CA',
    join(dir, 'ca.crt'),
    '-CAkey',
    join(dir, 'ca.key'),
    '-keyout',
    join(dir, `${name}.key`),
    '-out',
    join(dir, `${name}.crt`),
    ...extensions.flatMap((e) => ['-addext', e]),
  ]);
}

/** Writes ca, apiserver, admin and sa key material into `dir` (mode 0700). */
export async function makePki(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await exec('openssl', [
    'req',
    '-x509',
    ...EC,
    '-days',
    '30',
    '-subj',
    '/CN=runtime-bench-cluster-ca',
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    join(dir, 'ca.crt'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
  await signed(dir, 'apiserver', '/CN=kube-apiserver', [
    'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc',
    'extendedKeyUsage=serverAuth',
    'basicConstraints=critical,CA:FALSE',
  ]);
  await signed(dir, 'admin', '/O=system:masters/CN=runtime-bench-admin', [
    'extendedKeyUsage=clientAuth',
    'basicConstraints=critical,CA:FALSE',
  ]);
  await exec('openssl', [
    'genpkey',
    '-algorithm',
    'EC',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-out',
    join(dir, 'sa.key'),
  ]);
  const pub = await exec('openssl', ['pkey', '-in', join(dir, 'sa.key'), '-pubout']);
  await writeFile(join(dir, 'sa.pub'), pub.stdout);
}
