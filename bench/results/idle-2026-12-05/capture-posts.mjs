import { MessagePort, threadId, isMainThread } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import { serialize } from 'node:v8';
const orig = MessagePort.prototype.postMessage;
const start = Date.now();
const kept = [];
let done = false;
MessagePort.prototype.postMessage = function (m, t) {
  if (!done && Date.now() - start > 25_000 && Array.isArray(m)) {
    kept.push(m);
    if (kept.length >= 300) {
      done = true;
      const name = isMainThread ? 'main' : `t${threadId}`;
      try {
        writeFileSync(`/tmp/pm/cap-${process.pid}-${name}.bin`, serialize(kept));
      } catch (e) {
        writeFileSync(`/tmp/pm/cap-${process.pid}-${name}.err`, String(e));
      }
    }
  }
  return orig.call(this, m, t);
};
