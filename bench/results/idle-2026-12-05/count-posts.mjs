import { isMainThread, MessagePort, threadId } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
const orig = MessagePort.prototype.postMessage;
const c = { posts: 0, items: 0, nonArray: 0 };
MessagePort.prototype.postMessage = function (m, t) {
  c.posts++;
  if (Array.isArray(m)) c.items += m.length;
  else c.nonArray++;
  return orig.call(this, m, t);
};
const name = isMainThread ? 'main' : `t${threadId}`;
setInterval(() => writeFileSync(`/tmp/pm/out-${process.pid}-${name}.json`, JSON.stringify({ ...c, at: Date.now() })), 2000).unref();
