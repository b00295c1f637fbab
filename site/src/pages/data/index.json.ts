// /data/index.json: every run with its targets, for the compare page's client to pick from.
import type { APIRoute } from 'astro';
import { siteData } from '../../data.ts';

export const GET: APIRoute = async () =>
  // the lineage of each target is the build's (pre-rendered pairs), not the client's
  new Response(JSON.stringify((await siteData()).refs.map(({ lineage: _, ...ref }) => ref)), {
    headers: { 'content-type': 'application/json' },
  });
