import { useState } from 'preact/hooks';
import type { Translator } from './i18n.ts';

/** Copies `text` to the clipboard; says "Copied" for two seconds (announced politely). */
export function CopyButton({ t, text, label }: { t: Translator; text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(text).catch(() => undefined);
    setCopied(true);
    setTimeout(() => setCopied(false), 2_000);
  };
  return (
    <button type="button" onClick={copy} aria-live="polite" aria-label={label && !copied ? `${t.t('copy')}: ${label}` : undefined}>
      {copied ? t.t('copied') : t.t('copy')}
    </button>
  );
}
