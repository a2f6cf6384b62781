import type { Request } from 'express';

/** The `:id` path segment of a request ('' when absent). */
export function pathId(req: Request): string {
  const id = req.params['id'];
  return typeof id === 'string' ? id : '';
}
