import { spawnSync } from 'node:child_process';

/**
 * Runs `promtool check metrics` (Debian's prometheus package) on a /metrics text.
 * @returns its complaints, one per line ('' when the text passes).
 * @throws Error when promtool is not installed (`./dev test` installs it).
 */
export function promtoolProblems(text: string): string {
  const res = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (res.error)
    throw new Error(
      `promtool is needed for the metrics checks (${res.error.message}): run them through ./dev test, which installs it, or sudo apt-get install -y prometheus`,
    );
  return `${res.stdout}${res.stderr}`.trim();
}
