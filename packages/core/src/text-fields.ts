import { z } from 'zod';

// The text fields every request schema builds on, with the API's wording for their limits.

export const text = (max: number) => z.string().max(max, { error: `must be at most ${max} characters` });
export const requiredText = (max: number) => text(max).min(1, { error: 'must not be empty' });
