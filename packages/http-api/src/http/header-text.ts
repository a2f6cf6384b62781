import { isUtf8 } from 'node:buffer';

/**
 * A request header's value as its sender wrote it. Node reads each byte of a value as a Latin-1
 * character; bytes that form UTF-8 (what curl and most clients send for "ключ") are read as
 * UTF-8, others stay Latin-1 (a client that encodes "café" so). ASCII, the rule, is returned as it is.
 */
export function headerText(value: string): string {
  if (!NOT_ASCII.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}

const NOT_ASCII = /[\u0080-\uffff]/;
