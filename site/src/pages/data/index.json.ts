// /data/index.json: every run with its targets, for the compare page's client to pick from.
import type { APIRoute } from 'astro';
import { siteData } from '../../data.ts';

export const GET: APIRoute = async () =>
  new Response(JSON.stringify((await siteData()).refs), {
    headers: { 'content-type': 'application/json' },
  });
