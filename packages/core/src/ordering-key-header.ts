// The `webhook-ordering-key` header's value, in one module of its own (no imports): the dispatcher
// writes it, the portal shows it among the headers a delivery carried, and both must agree.

/**
 * The `webhook-ordering-key` value of `key`: the key itself when it is printable ASCII without
 * `%` or spaces at its ends (what a header carries unchanged); otherwise its UTF-8
 * percent-encoding (encodeURIComponent), since a header value cannot carry other characters as
 * they are. A `%` is always encoded, so `decodeURIComponent` of every value gives its key back:
 * sent as it was, `%20a` would have been the header of the key ` a` too, and a receiver keeping
 * sequences by key would have taken the second lane's first message for a duplicate.
 */
export function orderingKeyHeader(key: string): string {
  return /^[\x21-\x24\x26-\x7e]([\x20-\x24\x26-\x7e]*[\x21-\x24\x26-\x7e])?$/.test(key) ? key : encodeURIComponent(key);
}
