// Headless Chromium for the portal's browser tests: Debian's `chromium`, driven by
// playwright-core (no browser download). A missing browser fails the suite loudly.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);

export async function launchChromium(): Promise<Browser> {
  const executablePath = CANDIDATES.find((p) => existsSync(p));
  if (!executablePath) {
    throw new Error(
      'chromium was not found (/usr/bin/chromium). The portal browser tests need it: ' +
        'run them through `./dev test`, which installs it, or `sudo apt-get install -y chromium`.',
    );
  }
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
}
