/**
 * Small array helpers for the engine's hot paths. Array.prototype.fill is a native call that
 * the JIT does not inline; on the engine's short per-player arrays a plain loop is several
 * times cheaper.
 */

export function filledArray<T>(length: number, value: T): T[] {
  const array: T[] = [];
  for (let i = 0; i < length; i++) array.push(value);
  return array;
}

export function setAll<T>(array: T[], value: T): void {
  for (let i = 0; i < array.length; i++) array[i] = value;
}
