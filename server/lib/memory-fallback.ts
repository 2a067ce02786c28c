/**
 * A Redis-backed store that falls back to this process's memory while Redis cannot answer: each
 * method tries `primary`, and on an error reports it and asks `fallback` instead (ADR 034: a limit
 * never fails open, nor fails the request).
 */
export function withMemoryFallback<T extends { [K in keyof T]: (...args: never[]) => Promise<unknown> }>(
  primary: T,
  fallback: T,
  onFallback: (error: Error) => void,
): T {
  const store = {} as T
  for (const name of Object.keys(primary) as Array<keyof T>) {
    const method = (async (...args: never[]) => {
      try {
        return await primary[name](...args)
      } catch (error) {
        onFallback(error as Error)
        return fallback[name](...args)
      }
    }) as T[keyof T]
    store[name] = method
  }
  return store
}
