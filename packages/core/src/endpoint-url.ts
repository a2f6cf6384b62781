import { requiredText } from './text-fields.ts';

/** Syntax of an endpoint URL; whether its host may be reached is checked by the egress policy. */
export const endpointUrl = requiredText(2_000).superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
    return;
  }
  if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use https' });
  else if (url.port !== '' && url.port !== '8443') {
    ctx.addIssue({ code: 'custom', message: 'must use port 443 or 8443' });
  }
  if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
});
