// Debian's chromium for the browser tests (never a downloaded browser), and what every page test
// asks of a page: opened at a width with its console errors, page errors and failed requests
// collected; no sideways scroll, and no NaN / Infinity / undefined anywhere in its text.
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
}

export interface Visit {
  page: Page;
  problems: string[];
}

/** Opens `url` at a width (a phone's height below 500 px), waiting until the network is idle. */
export async function openAt(browser: Browser, url: string, width: number): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width, height: width > 500 ? 900 : 844 } });
  page.setDefaultTimeout(120_000);
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  const response = await page.goto(url, { waitUntil: 'load' });
  expect(response?.status(), url).toBe(200);
  await page.waitForLoadState('networkidle');
  return { page, problems };
}

/** No sideways scroll, and no NaN / Infinity / undefined anywhere in the text. */
export async function expectReadable(page: Page, what: string): Promise<void> {
  const { scrollWidth, innerWidth, text } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    text: document.body.innerText,
  }));
  expect(scrollWidth, `${what}: page wider than the screen`).toBeLessThanOrEqual(innerWidth);
  expect(text, what).not.toMatch(/\bNaN\b|Infinity|\bundefined\b/);
}
