// Takes docs/screenshot-390.png, the README's picture of the page on a phone: Chromium at
// 390 × 844, the jitter story, scrolled to the retry policy with the herd docked below it.
// Run: node tests/e2e/shot-narrow.mjs   (needs `make dist` and target/release/stampede)

import { join } from "node:path";
import { ROOT, afterRun, launchBrowser, startServer, waitReady } from "./harness.mjs";

const server = await startServer();
const browser = await launchBrowser({ viewport: { width: 390, height: 844 } });
try {
  const page = await browser.context.newPage();
  await page.goto(server.url);
  await waitReady(page);
  await afterRun(page, () => page.click('[data-preset="jitter"]'));
  await page.locator("#base-range").scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, -120));
  await page.waitForTimeout(300);
  const path = join(ROOT, "docs", "screenshot-390.png");
  await page.screenshot({ path });
  console.log(`wrote ${path}`);
} finally {
  await browser.close();
  await server.stop();
}
