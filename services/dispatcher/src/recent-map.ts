/** Sets `key` last (most recent) in `map`; drops the oldest past `capacity`: a Map kept as an LRU. */
export function remember<T>(map: Map<string, T>, key: string, value: T, capacity: number): void {
  map.delete(key);
  if (map.size >= capacity) map.delete(map.keys().next().value!);
  map.set(key, value);
}
