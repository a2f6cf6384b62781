/** What a pool change says: the addresses added (or put back), those taken out, and until when those stay listed. */
export interface ChangeLists {
  added: string[];
  retiring: string[];
  retiringAt: number | null;
}

/**
 * A newer change folded over ones still being told (which it supersedes), so organizations
 * the older ones had not reached yet hear what those said too: an address added and then
 * taken out again is no longer added, one taken out and put back no longer retiring.
 */
export function foldChanges(older: readonly ChangeLists[], newer: ChangeLists): ChangeLists {
  const added = new Set<string>();
  const retiring = new Set<string>();
  let retiringAt: number | null = null;
  for (const change of [...older, newer]) {
    for (const ip of change.added) {
      retiring.delete(ip);
      added.add(ip);
    }
    for (const ip of change.retiring) {
      added.delete(ip);
      retiring.add(ip);
    }
    if (change.retiring.length > 0) retiringAt = change.retiringAt;
  }
  return { added: [...added], retiring: [...retiring], retiringAt: retiring.size > 0 ? retiringAt : null };
}
