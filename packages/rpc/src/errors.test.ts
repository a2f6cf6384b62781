import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  PlanLimitError,
  RateLimitedError,
  TooLargeError,
  UnauthorizedError,
  UnavailableError,
  WirehookError,
} from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { carriedError, ERROR_METADATA_KEY, errorOfCarried, fromServiceError, RETRY_SAFELY, RpcError, toStatus } from './errors.ts';

const PATH = '/wirehook.intake.v1.MessageIntake/Send';

/** What a client sees for a status the server answered. */
function received(answer: ReturnType<typeof toStatus>): ServiceError {
  return Object.assign(new Error(answer.details), {
    code: answer.code ?? status.UNKNOWN,
    details: answer.details ?? '',
    metadata: answer.metadata ?? new Metadata(),
  });
}

describe('Wirehook errors over gRPC', () => {
  it.each([
    [new InvalidError('payload: is 1,000,001 bytes of JSON; at most 1,000,000 (1 MB)'), status.INVALID_ARGUMENT],
    [new TooLargeError('body: at most 1 MB'), status.INVALID_ARGUMENT],
    [new NotFoundError('delivery dlv_X not found'), status.NOT_FOUND],
    [new ConflictError('the endpoint of delivery dlv_X is paused; resume it first'), status.FAILED_PRECONDITION],
    [new PlanLimitError("the free plan's 10,000 live messages this month are used up"), status.RESOURCE_EXHAUSTED],
    [new RateLimitedError('too many requests', 17), status.RESOURCE_EXHAUSTED],
    [new UnauthorizedError(), status.UNAUTHENTICATED],
    [new ForbiddenError('the key lacks the messages:write scope'), status.PERMISSION_DENIED],
    [new UnavailableError('the store is unavailable'), status.UNAVAILABLE],
    [new WirehookError('internal', 'shown as is'), status.INTERNAL],
  ])('%s travels as status %i and comes back as the same error', (sent, code) => {
    const answer = toStatus(sent);
    expect(answer.code).toBe(code);
    const back = fromServiceError(received(answer), PATH, 'MessageIntake', 5_000);
    expect(back).toBeInstanceOf(sent.constructor);
    expect(back).toMatchObject({ code: sent.code, message: sent.message, name: sent.name });
    if (sent instanceof RateLimitedError) expect((back as RateLimitedError).retryAfterSeconds).toBe(17);
  });

  it('keeps a message that is not ASCII exactly', () => {
    const sent = new InvalidError('retry.count: must be one of 0, 1, 2, 3, 5, 7, 12 — got “9”…');
    expect(fromServiceError(received(toStatus(sent)), PATH, 'MessageIntake', 5_000).message).toBe(sent.message);
  });

  it('answers anything else as an opaque INTERNAL without the original message', () => {
    const answer = toStatus(new TypeError('secret detail'));
    expect(answer).toEqual({ code: status.INTERNAL, details: 'internal error' });
    const back = fromServiceError(received(answer), PATH, 'MessageIntake', 5_000);
    expect(back).toBeInstanceOf(RpcError);
    expect(back).not.toBeInstanceOf(WirehookError);
    expect(back).toMatchObject({ code: status.INTERNAL, path: PATH });
  });

  it('turns a status without a Wirehook error into Unavailable (transport) or RpcError (the rest)', () => {
    const bare = (code: status, details: string) => received({ code, details });
    expect(fromServiceError(bare(status.UNAVAILABLE, 'No connection established'), PATH, 'MessageIntake', 5_000)).toMatchObject({
      code: 'unavailable',
      message: 'MessageIntake is unavailable; try again',
    });
    expect(fromServiceError(bare(status.DEADLINE_EXCEEDED, 'Deadline exceeded'), PATH, 'MessageIntake', 250)).toMatchObject({
      code: 'unavailable',
      message: `MessageIntake did not answer within 250 ms; it may still have done it: ${RETRY_SAFELY}`,
    });
    // grpc-js's own "message larger than max" must not become a 429 or 402.
    const tooBig = fromServiceError(bare(status.RESOURCE_EXHAUSTED, 'Received message larger than max'), PATH, 'MessageIntake', 5_000);
    expect(tooBig).toBeInstanceOf(RpcError);
  });

  it('ignores metadata that is not a Wirehook error', () => {
    const metadata = new Metadata();
    metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify({ error: 'teapot', message: 'x' })));
    const err = Object.assign(new Error('x'), { code: status.INVALID_ARGUMENT, details: 'x', metadata });
    expect(fromServiceError(err, PATH, 'MessageIntake', 5_000)).toBeInstanceOf(RpcError);
  });
});

describe('Wirehook errors carried in a batched call’s outcome (CallError)', () => {
  it.each([
    new RateLimitedError('test-environment sends are limited to 1,000 per UTC day', 30),
    new PlanLimitError("the starter plan's 250,000 live messages this month are used up"),
    new WirehookError('internal', 'shown as it is: a Wirehook error'),
  ])('%s crosses as the same class, code, message and Retry-After', (thrown) => {
    const back = errorOfCarried(carriedError(thrown), PATH);
    expect(back.constructor).toBe(thrown.constructor);
    expect(back).toMatchObject({ code: thrown.code, message: thrown.message });
    if (thrown instanceof RateLimitedError) expect(back).toMatchObject({ retryAfterSeconds: 30 });
  });

  it('a failure that was no Wirehook error crosses opaque: code "", an RpcError (INTERNAL) at the client', () => {
    const carried = carriedError(new TypeError("Cannot read properties of undefined (reading 'id')"));
    expect(carried).toEqual({ code: '', message: 'internal error' });
    expect(errorOfCarried(carried, PATH)).toMatchObject({ name: 'RpcError', code: status.INTERNAL, path: PATH });
    expect(errorOfCarried(carried, PATH)).not.toBeInstanceOf(WirehookError);
  });

  it('a code this version does not know (a newer server’s) is an RpcError, its message never shown', () => {
    const back = errorOfCarried({ code: 'teapot', message: 'short and stout' }, PATH);
    expect(back).toBeInstanceOf(RpcError);
    expect(back).not.toBeInstanceOf(WirehookError);
  });
});
