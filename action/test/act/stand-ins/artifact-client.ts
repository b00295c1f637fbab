// TEST STAND-IN (see README.md): the smallest client of act's artifact server (the v4 twirp API
// that actions/upload-artifact and download-artifact speak) the act test needs.
//   upload:   NAME, UPLOAD_PATH (file or directory), IF_NO_FILES_FOUND
//   download: PATTERN (glob over names), DOWNLOAD_PATH (each artifact into DOWNLOAD_PATH/<name>/)
// The blob is a tar stream of the files (act stores it as <name>.zip without looking inside).
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { basename, dirname, matchesGlob, resolve } from 'node:path';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`artifact stand-in: ${name} is not set`);
  return v;
};
const base = `${env('ACTIONS_RESULTS_URL').replace(/\/$/, '')}/twirp/github.actions.results.api.v1.ArtifactService`;
const ids = { workflowRunBackendId: env('GITHUB_RUN_ID'), workflowJobRunBackendId: env('GITHUB_RUN_ID') };

async function call<T>(method: string, body: object): Promise<T> {
  const res = await fetch(`${base}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env('ACTIONS_RUNTIME_TOKEN')}` },
    body: JSON.stringify({ ...ids, ...body }),
  });
  if (!res.ok) throw new Error(`artifact stand-in: ${method}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

async function upload(): Promise<void> {
  const name = env('NAME');
  const path = resolve(env('UPLOAD_PATH'));
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    const msg = `artifact stand-in: no files found at ${path}`;
    if (process.env.IF_NO_FILES_FOUND === 'error') throw new Error(msg);
    console.log(`::warning::${msg}`);
    return;
  }
  const tar = isDir
    ? execFileSync('tar', ['-C', path, '-cf', '-', '.'], { maxBuffer: 1 << 30 })
    : execFileSync('tar', ['-C', dirname(path), '-cf', '-', basename(path)], { maxBuffer: 1 << 30 });
  const { signedUploadUrl } = await call<{ signedUploadUrl: string }>('CreateArtifact', { name, version: 4 });
  for (const comp of ['block', 'blocklist']) {
    const res = await fetch(`${signedUploadUrl}&comp=${comp}`, {
      method: 'PUT',
      body: comp === 'block' ? tar : '',
    });
    if (res.status !== 201) throw new Error(`artifact stand-in: upload ${comp}: HTTP ${res.status}`);
  }
  await call('FinalizeArtifact', { name, size: String(tar.length) });
  console.log(`artifact stand-in: uploaded ${name} (${tar.length} bytes of tar)`);
}

async function download(): Promise<void> {
  const pattern = process.env.PATTERN || '*';
  const dest = resolve(process.env.DOWNLOAD_PATH || '.');
  const { artifacts = [] } = await call<{ artifacts?: { name: string }[] }>('ListArtifacts', {});
  const chosen = artifacts.filter((a) => matchesGlob(a.name, pattern));
  for (const { name } of chosen) {
    const { signedUrl } = await call<{ signedUrl: string }>('GetSignedArtifactURL', { name });
    const res = await fetch(signedUrl);
    if (!res.ok) throw new Error(`artifact stand-in: download ${name}: HTTP ${res.status}`);
    const dir = resolve(dest, name);
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-C', dir, '-xf', '-'], { input: Buffer.from(await res.arrayBuffer()) });
    console.log(`artifact stand-in: downloaded ${name} into ${dir}`);
  }
  if (chosen.length === 0) console.log(`::warning::artifact stand-in: no artifact matches ${pattern}`);
}

const mode = process.argv[2];
if (mode === 'upload') await upload();
else if (mode === 'download') await download();
else throw new Error(`artifact stand-in: mode upload or download, not ${mode}`);
