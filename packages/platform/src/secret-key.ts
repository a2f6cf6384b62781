import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretBox } from '@wirehook/core';

/**
 * The SecretBox that seals signing secrets at rest. Cluster deployments pass
 * WIREHOOK_SECRET_KEY (base64, 32 bytes); embedded mode keeps a key file in DATA_DIR,
 * made on first start with owner-only permissions.
 */
export function loadSecretBox(options: { keyBase64?: string; dataDir: string }): SecretBox {
  if (options.keyBase64) return SecretBox.fromBase64(options.keyBase64);
  const file = join(options.dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(options.dataDir, { recursive: true });
    writeFileSync(file, `${SecretBox.generateKey()}\n`, { mode: 0o600, flag: 'wx' });
  }
  return SecretBox.fromBase64(readFileSync(file, 'utf8').trim());
}
