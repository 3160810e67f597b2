/**
 * The protocol's byte streams over this process's stdin and stdout. Once they exist, any
 * other write to stdout (a stray console.log, a library's banner) is sent to stderr instead,
 * so the editor only ever reads JSON-RPC frames.
 */
import { Readable } from "node:stream";
import { dropRepeatedAnswer, type EarlyAnswer } from "./early-initialize.js";

export function protocolStreams(early?: EarlyAnswer): {
  output: WritableStream<Uint8Array>;
  input: ReadableStream<Uint8Array>;
} {
  const stdout = process.stdout;
  const writeFrame = stdout.write.bind(stdout) as (chunk: Uint8Array, done: (error?: Error | null) => void) => boolean;
  const toStderr = process.stderr.write.bind(process.stderr);
  stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    (toStderr as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof stdout.write;
  for (const method of ["log", "info", "debug"] as const) {
    console[method] = (...args: unknown[]) => console.error(...args);
  }
  const filter = dropRepeatedAnswer(early);
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => {
      const frame = filter(chunk);
      if (!frame) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        writeFrame(frame, (error) => (error ? reject(error) : resolve()));
      });
    },
  });
  const input = Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;
  return { output, input };
}
