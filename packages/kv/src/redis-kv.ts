import { UnavailableError, within } from '@wirehook/core';
// ioredis is pinned to ^5: OpenTelemetry's ioredis instrumentation supports only < 6.
import { Redis, ReplyError } from 'ioredis';
import { assertLog, assertTtlMs, type Kv, STEPPED_BACK_MS } from './kv.ts';
import { parseRedisUrl } from './redis-url.ts';

/** Options for {@link RedisKv}. */
export interface RedisKvOptions {
  /** `redis://[user:password@]host:port[/db]` (`rediss://` for TLS), or a Sentinel group: `redis+sentinel://host:port,…/<primary>` (redis-url.ts). */
  url: string;
  /** Prepended to every key, so several deployments can share one Redis. Default ''. */
  keyPrefix?: string | undefined;
  /**
   * How long one call may wait for Redis (a command's answer, or a connection attempt in
   * progress) before it rejects with {@link KvUnavailableError}. Default 500.
   */
  commandTimeoutMs?: number | undefined;
}

/**
 * Redis could not be reached, or did not answer in time. A 503 (`unavailable`): callers
 * decide whether to fail open (rate limits) or closed (idempotency) while Redis is down.
 */
export class KvUnavailableError extends UnavailableError {}

// EXISTS first so that only the call creating the key sets its expiry. Past 2^53 - 1 the
// count would lose precision in JavaScript, so that increment is undone and refused.
const INCR_LUA = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local n = redis.call('INCR', KEYS[1])
if n > 9007199254740991 then
  redis.call('DECR', KEYS[1])
  return redis.error_reply('ERR value is not an integer or out of range')
end
if created then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

// A marker is removed only by its owner: between a GET and a DEL from the client another
// writer could have replaced it, so the comparison and the DEL run as one script.
const DELETE_IF_EQUALS_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// Compare-and-set: between a GET and a SET from the client another dispatcher could
// have written, so the comparison and the write run as one script. ARGV[1]/ARGV[3] say whether
// an expected / next value is given at all (absent and empty differ).
const COMPARE_AND_SET_LUA = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5]) else redis.call('DEL', KEYS[1]) end
return 1
`;

// A sliding log: the member is added only while fewer than the limit lie in the window
// before the caller's `now` (and after it: another dispatcher's, stamped later, arrived first);
// else the wait until the oldest of them leaves. One script, so two dispatchers admitting at
// once cannot both take the last place. Entries are pruned a whole window late: a call stamped
// earlier that arrives after one stamped later still counts what lies in its own window (
// pruning at the caller's own window let 11 into a second of the attempts' times).
// An entry stamped over STEPPED_BACK_MS (a minute, or the window if longer) after the call's
// `now` was stamped before a clock stepped back (NTP, a VM resumed): it counts as made at `now` —
// the window held a minute longer at most, not for the length of the step (an hour's step had
// refused every admit for the hour). Nearer, it keeps its time: another dispatcher's, whose clock is
// a little ahead (restamped at each lagging call, a second's skew had let the ahead one a whole new
// limit per call).
// Both log scripts share this admit (KEYS[1] the log; ARGV member, limit or default, window,
// now): they set `limit` before it and answer `wait` after it.
const ADMIT_LUA = `
local now = tonumber(ARGV[4])
local window = tonumber(ARGV[3])
local wait = 0
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 2 * window)
local ahead = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now + math.max(window, ${STEPPED_BACK_MS})), '+inf')
for i = 1, #ahead do redis.call('ZADD', KEYS[1], now, ahead[i]) end
if redis.call('ZCOUNT', KEYS[1], '(' .. (now - window), '+inf') < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], 2 * window)
else
  local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - window), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  wait = math.max(1, tonumber(oldest[2]) + window - now)
end
`;

const LOG_ADMIT_LUA = `
local limit = tonumber(ARGV[2])
${ADMIT_LUA}
return wait
`;

// The admit with its limit read from KEYS[2] in the same script (an endpoint's adaptive limit
// beside its flight: one round trip, not a GET and then an admit, and no cut in between). A
// value that is not JSON, or has no positive integer `limit`, leaves ARGV[2]: pcall, so a bad
// value never fails the admit. The value goes back as read (false: nil, the key is missing).
// Both keys must hash to one slot in a Redis Cluster; RedisKv takes one server or a Sentinel group.
const LOG_ADMIT_LIMITED_BY_LUA = `
local value = redis.call('GET', KEYS[2])
local limit = tonumber(ARGV[2])
if value then
  local ok, decoded = pcall(cjson.decode, value)
  if ok and type(decoded) == 'table' then
    local stored = decoded['limit']
    if type(stored) == 'number' and stored >= 1 and stored <= 9007199254740991 and stored == math.floor(stored) then limit = stored end
  end
end
${ADMIT_LUA}
return {wait, value}
`;

// A send ended: its place in flight is given back and, in the same step, everyone waiting
// for a place of that endpoint is told, so no waiter has to poll. PUBLISH to a channel nobody
// listens on costs one dictionary lookup.
const LOG_REMOVE_SIGNAL_LUA = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], '')
return 0
`;

// Replies that mean "this server cannot serve you right now", not "your command is wrong".
const UNAVAILABLE_REPLY = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|NOREPLICAS)\b/;

const MAX_RECONNECT_DELAY_MS = 1_000;
/** A live socket closes within a round trip on loopback or in a cluster; a gone one never does. */
const DISCONNECT_TIMEOUT_MS = 100;

interface ScriptedRedis extends Redis {
  wirehookIncr(key: string, ttlMs: number): Promise<number>;
  wirehookDeleteIfEquals(key: string, value: string): Promise<number>;
  wirehookCompareAndSet(key: string, hasExpected: string, expected: string, hasNext: string, next: string, ttlMs: number): Promise<number>;
  wirehookLogAdmit(key: string, member: string, limit: number, windowMs: number, now: number): Promise<number>;
  wirehookLogAdmitLimitedBy(
    key: string,
    limitKey: string,
    member: string,
    defaultLimit: number,
    windowMs: number,
    now: number,
  ): Promise<[number, string | null]>;
  wirehookLogRemoveSignal(key: string, member: string, channel: string): Promise<number>;
}

/**
 * The Kv of cluster mode, on one Redis (>= 7.0, for `SET … NX GET`). Fails fast while
 * Redis is unreachable: nothing is queued offline, a command waits at most
 * `commandTimeoutMs`, and a call rejects with {@link KvUnavailableError} instead of
 * hanging. The client reconnects forever in the background (backoff capped at 1 s), so
 * calls succeed again once Redis is back, without a new RedisKv. Redis error replies
 * (e.g. incrementing a non-integer) reject with ioredis' `ReplyError` as they are.
 */
export class RedisKv implements Kv {
  readonly #client: ScriptedRedis;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #where: string;
  #lastError: Error | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  /**
   * The connection `listen` subscribes on, made at the first `listen` (a subscribed connection
   * can send nothing else). Its channels are subscribed again by us after a reconnect.
   */
  #subscriber: Redis | undefined;
  /** Listeners per channel (prefixed), subscribed while there is one. */
  readonly #listeners = new Map<string, Set<() => void>>();

  constructor(options: RedisKvOptions) {
    this.#prefix = options.keyPrefix ?? '';
    this.#timeoutMs = options.commandTimeoutMs ?? 500;
    if (!Number.isSafeInteger(this.#timeoutMs) || this.#timeoutMs <= 0) {
      throw new RangeError(`kv: commandTimeoutMs must be a positive integer, got ${options.commandTimeoutMs}`);
    }
    const target = parseRedisUrl(options.url);
    this.#where = target.where;
    const behaviour = {
      enableOfflineQueue: false,
      // The calls of one turn of the event loop go in one write, and Redis reads them in one:
      // a dispatcher's sends each make two to three calls, hundreds at once (issue 46: −40 %
      // of redis-server's CPU a delivery, −6 % of the dispatcher's). Scripts are pipelined too.
      // The cost: OpenTelemetry's ioredis spans of one pipeline all sit in the trace of the call
      // that opened it (the pipeline is written in its context), as README › Tracing says.
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      commandTimeout: this.#timeoutMs,
      connectTimeout: Math.max(this.#timeoutMs, 2_000),
      retryStrategy: (attempt: number) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
      // How long a disconnect waits for the socket's close before destroying it. ioredis arms this
      // timer even for a socket already gone (closed while Redis is down, between reconnects), and
      // its default 2 s then held a stopped process open for 2 s after everything else had ended.
      disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    };
    this.#client = (
      target.kind === 'server'
        ? new Redis(target.url, behaviour)
        : // The sentinels are asked again whenever the primary is lost (a failover).
          new Redis({ ...target.options, ...behaviour, sentinelRetryStrategy: behaviour.retryStrategy })
    ) as ScriptedRedis;
    this.#client.defineCommand('wirehookIncr', { numberOfKeys: 1, lua: INCR_LUA });
    this.#client.defineCommand('wirehookDeleteIfEquals', { numberOfKeys: 1, lua: DELETE_IF_EQUALS_LUA });
    this.#client.defineCommand('wirehookCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET_LUA });
    this.#client.defineCommand('wirehookLogAdmit', { numberOfKeys: 1, lua: LOG_ADMIT_LUA });
    this.#client.defineCommand('wirehookLogAdmitLimitedBy', { numberOfKeys: 2, lua: LOG_ADMIT_LIMITED_BY_LUA });
    this.#client.defineCommand('wirehookLogRemoveSignal', { numberOfKeys: 1, lua: LOG_REMOVE_SIGNAL_LUA });
    // Connection errors surface as rejected calls; without a listener ioredis prints them.
    this.#client.on('error', (err: Error) => {
      this.#lastError = err;
    });
  }

  async incr(key: string, ttlMs: number): Promise<number> {
    assertTtlMs(ttlMs);
    return this.#run('incr', () => this.#client.wirehookIncr(this.#prefix + key, ttlMs));
  }

  async get(key: string): Promise<string | null> {
    return this.#run('get', () => this.#client.get(this.#prefix + key));
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null> {
    assertTtlMs(ttlMs);
    // One command: sets only when absent and answers the value that was there (nil when
    // this call stored it). NX with GET needs Redis 7.0.
    return this.#run('setIfAbsent', () => this.#client.set(this.#prefix + key, value, 'PX', ttlMs, 'NX', 'GET'));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    assertTtlMs(ttlMs);
    await this.#run('set', () => this.#client.set(this.#prefix + key, value, 'PX', ttlMs));
  }

  async delete(key: string): Promise<void> {
    await this.#run('delete', () => this.#client.del(this.#prefix + key));
  }

  async deleteIfEquals(key: string, value: string): Promise<boolean> {
    return (await this.#run('deleteIfEquals', () => this.#client.wirehookDeleteIfEquals(this.#prefix + key, value))) === 1;
  }

  async compareAndSet(key: string, expected: string | null, next: string | null, ttlMs: number): Promise<boolean> {
    assertTtlMs(ttlMs);
    const flag = (v: string | null): string => (v === null ? '0' : '1');
    const run = () => this.#client.wirehookCompareAndSet(this.#prefix + key, flag(expected), expected ?? '', flag(next), next ?? '', ttlMs);
    return (await this.#run('compareAndSet', run)) === 1;
  }

  async logAdmit(key: string, member: string, limit: number, windowMs: number, now: number): Promise<number> {
    assertLog(limit, windowMs);
    return this.#run('logAdmit', () => this.#client.wirehookLogAdmit(this.#prefix + key, member, limit, windowMs, now));
  }

  async logAdmitLimitedBy(
    key: string,
    member: string,
    limitKey: string,
    defaultLimit: number,
    windowMs: number,
    now: number,
  ): Promise<{ wait: number; limitValue: string | null }> {
    assertLog(defaultLimit, windowMs);
    const run = () => this.#client.wirehookLogAdmitLimitedBy(this.#prefix + key, this.#prefix + limitKey, member, defaultLimit, windowMs, now);
    const [wait, limitValue] = await this.#run('logAdmitLimitedBy', run);
    return { wait, limitValue };
  }

  async logRemove(key: string, member: string, signal?: string): Promise<void> {
    if (signal === undefined) await this.#run('logRemove', () => this.#client.zrem(this.#prefix + key, member));
    else await this.#run('logRemove', () => this.#client.wirehookLogRemoveSignal(this.#prefix + key, member, this.#prefix + signal));
  }

  async listen(channel: string, onSignal: () => void): Promise<() => void> {
    if (this.#closed) throw new Error('kv: closed');
    const name = this.#prefix + channel;
    const subscriber = this.#subscriberConnection();
    const listener = () => onSignal();
    let listeners = this.#listeners.get(name);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(name, listeners);
    }
    listeners.add(listener);
    const stop = () => {
      listeners.delete(listener);
      if (listeners.size > 0 || this.#listeners.get(name) !== listeners) return;
      this.#listeners.delete(name);
      if (!this.#closed) this.#unsubscribe(subscriber, [name]);
    };
    try {
      if (subscriber.status !== 'ready') await this.#waitForReady(subscriber);
      await subscriber.subscribe(name);
    } catch (err) {
      stop();
      this.#reconnectIfSilent(subscriber, err); // the caller asks again later
      throw err instanceof KvUnavailableError ? err : this.#unavailable('listen', err);
    }
    return stop;
  }

  /**
   * UNSUBSCRIBE. One that cannot be sent (the connection is down) needs no second try: a
   * reconnected subscriber subscribes the channels listened to then (`#subscriberConnection`).
   * A channel may still stay subscribed — on a connection that stayed up, or by a SUBSCRIBE that
   * was unanswered at a drop, which ioredis sends again after it — and carries messages nobody hears.
   */
  #unsubscribe(subscriber: Redis, names: string[]): void {
    subscriber.unsubscribe(...names).catch(() => undefined);
  }

  #subscriberConnection(): Redis {
    if (this.#subscriber !== undefined) return this.#subscriber;
    // Not ioredis's own resubscribing (`autoResubscribe`): its SUBSCRIBE after a reconnect has no
    // handler, so a connection that stopped being writable between the ready check and it (closed
    // by close() during a reconnect, or Redis gone right after answering) rejected it unhandled,
    // and an unhandled rejection ends a Node process (a service stopping or riding out a Redis blip).
    const subscriber = this.#client.duplicate({ keepAlive: 10_000, autoResubscribe: false });
    subscriber.on('error', (err: Error) => {
      this.#lastError = err;
    });
    subscriber.on('message', (channel: string) => {
      for (const listener of this.#listeners.get(channel) ?? []) listener();
    });
    // Each time the connection turns ready (the first included: a listen's own SUBSCRIBE then
    // repeats it, which Redis takes as one), the channels listened to now; those stopped while it
    // was down are left out.
    subscriber.on('ready', () => {
      const names = [...this.#listeners.keys()];
      if (names.length === 0 || this.#closed) return;
      subscriber.subscribe(...names).catch((err: Error) => {
        this.#lastError = err;
        this.#reconnectIfSilent(subscriber, err); // and try again then
      });
    });
    this.#subscriber = subscriber;
    return subscriber;
  }

  /**
   * A SUBSCRIBE sent but not answered on a connection still up (a half-open socket an idle timeout
   * left): reconnect it, and its channels are subscribed again once it is back. Not on a refusal
   * (an ACL's NOPERM): that would be the same again, reconnecting ten times a second (ioredis's
   * backoff starts over at each ready).
   */
  #reconnectIfSilent(subscriber: Redis, err: unknown): void {
    if ((err as Error | undefined)?.message === 'Command timed out' && subscriber.status === 'ready' && !this.#closed) subscriber.disconnect(true);
  }

  async logCount(key: string, windowMs: number, now: number): Promise<number> {
    return this.#run('logCount', () => this.#client.zcount(this.#prefix + key, `(${now - windowMs}`, '+inf'));
  }

  /** Sends QUIT when connected (else just disconnects) and stops reconnecting. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    this.#subscriber?.disconnect();
    if (this.#client.status === 'ready') {
      try {
        await this.#client.quit();
        return;
      } catch {
        // fall through: drop the connection
      }
    }
    this.#client.disconnect();
  }

  /**
   * Runs one call within the command timeout, counted from the call: with auto-pipelining a
   * command waits for the pipeline ahead of it to settle before it is written, and ioredis'
   * own `commandTimeout` starts only then (a call while Redis stalls took up to twice as long).
   */
  async #run<T>(op: string, command: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('kv: closed');
    return within(this.#attempt(op, command), this.#timeoutMs, () => this.#unavailable(op, new Error(`no answer within ${this.#timeoutMs} ms`)));
  }

  async #attempt<T>(op: string, command: () => Promise<T>): Promise<T> {
    try {
      await this.#connected();
      return await command();
    } catch (err) {
      if (err instanceof ReplyError && !UNAVAILABLE_REPLY.test((err as Error).message)) throw err;
      if (err instanceof KvUnavailableError) throw err;
      throw this.#unavailable(op, err);
    }
  }

  /**
   * Resolves when the client can send now. While a connection attempt is under way (at
   * start-up, or a reconnect in flight) waits for it up to the command timeout; while
   * Redis is known to be down (waiting to reconnect) rejects at once.
   */
  async #connected(): Promise<void> {
    const client = this.#client;
    if (client.status === 'ready') return;
    if (client.status !== 'connecting' && client.status !== 'connect' && client.status !== 'wait') {
      throw this.#unavailable('connect', this.#lastError);
    }
    // Calls arriving during one attempt share one wait (and one set of listeners).
    this.#connecting ??= this.#waitForReady(client).finally(() => {
      this.#connecting = undefined;
    });
    await this.#connecting;
  }

  #waitForReady(client: Redis): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const finish = (err?: Error): void => {
        clearTimeout(timer);
        client.off('ready', onReady);
        client.off('close', onClose);
        client.off('end', onClose);
        if (err === undefined) resolve();
        else reject(err);
      };
      const onReady = (): void => finish();
      const onClose = (): void => finish(this.#unavailable('connect', this.#lastError));
      const timer = setTimeout(() => finish(this.#unavailable('connect', new Error(`no connection within ${this.#timeoutMs} ms`))), this.#timeoutMs);
      client.once('ready', onReady);
      client.once('close', onClose);
      client.once('end', onClose);
    });
  }

  #unavailable(op: string, cause: unknown): KvUnavailableError {
    const reason = cause instanceof Error ? cause.message : 'not connected';
    return new KvUnavailableError(`kv: Redis at ${this.#where} is unavailable (${op}): ${reason}`, { cause });
  }
}
