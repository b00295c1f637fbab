// Serves every result file unchanged at /data/<path inside the data directory>, so that any
// number on the site can be checked against the JSON it came from.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { APIRoute } from 'astro';
import { siteData } from '../../data.ts';

export function getStaticPaths() {
  return siteData().loaded.map((l) => ({ params: { file: l.file } }));
}

export const GET: APIRoute = async ({ params }) => {
  const text = await readFile(join(siteData().dataDir, params.file!), 'utf8');
  return new Response(text, { headers: { 'content-type': 'application/json' } });
};
