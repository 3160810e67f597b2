/**
 * `promise`, or a rejection as soon as `signal` aborts (with `reason()`, else the signal's own
 * reason). The promise itself goes on: others may be waiting for it.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, reason?: () => unknown): Promise<T> {
  const why = () => (reason ? reason() : signal.reason);
  if (signal.aborted) return Promise.reject(why());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(why());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
