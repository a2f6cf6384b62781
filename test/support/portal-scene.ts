// What each portal browser test starts before its own scene: embedded Wirehook reaching the
// test receivers, a tenant on the starter plan, one receiver, headless Chromium.
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { startWirehook, type Harness, type TestTenant } from './harness.ts';
import { type NamedReceiver, reachingReceivers, startReceiver } from './receivers.ts';

export interface PortalScene {
  wh: Harness;
  t: TestTenant;
  rx: NamedReceiver;
  browser: Browser;
}

export async function openPortalScene(): Promise<PortalScene> {
  const wh = await startWirehook(await reachingReceivers());
  const t = await wh.tenant({ plan: 'starter' });
  const rx = await startReceiver();
  const browser = await launchChromium();
  return { wh, t, rx, browser };
}

/** Closes what {@link openPortalScene} opened, browser first; any part may be missing (a failed start). */
export async function closePortalScene(s: Partial<PortalScene>): Promise<void> {
  await s.browser?.close();
  await s.rx?.receiver.close();
  await s.wh?.close();
}
