/**
 * A real SMTP server on loopback (smtp-server) that requires a login, keeps what it receives
 * (parsed with mailparser), and can answer the next messages with a chosen failure reply.
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
  mail: ParsedMail;
  /** Header values as received (lower-case names). */
  header(name: string): string;
}

export interface FakeSmtpOptions {
  user: string;
  password: string;
}

export interface FakeSmtp {
  host: string;
  port: number;
  received: ReceivedMail[];
  /** When each connection was opened (performance.now()). */
  connectedAt: number[];
  /** Logins refused so far. */
  refusedLogins: number;
  /** Answers the next DATA commands with these SMTP replies, in order. */
  failNext(...replies: Array<{ code: number; message: string }>): void;
  /** Resolves with the received mail once `test` holds for one (checked on every arrival). */
  waitFor(test: (mail: ReceivedMail) => boolean, what?: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startFakeSmtp(options: FakeSmtpOptions): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const connectedAt: number[] = [];
  const failures: Array<{ code: number; message: string }> = [];
  const listeners = new Set<() => void>();
  let refusedLogins = 0;
  const server = new SMTPServer({
    secure: false,
    hideSTARTTLS: true,
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) {
        callback(null, { user: auth.username });
        return;
      }
      refusedLogins += 1;
      callback(Object.assign(new Error("Invalid login or password"), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const failure = failures.shift();
        if (failure) {
          callback(Object.assign(new Error(failure.message), { responseCode: failure.code }));
          return;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              mail,
              header: (name) => {
                const value = mail.headers.get(name.toLowerCase());
                if (value === undefined) return "";
                return typeof value === "string" ? value : JSON.stringify(value);
              },
            });
            callback();
            for (const listener of [...listeners]) listener();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  server.on("error", () => undefined);
  // Stamped when the TCP connection arrives: the first bytes of a reply, before any SMTP talk.
  server.server.on("connection", () => connectedAt.push(performance.now()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    host: "127.0.0.1",
    port,
    received,
    connectedAt,
    get refusedLogins() {
      return refusedLogins;
    },
    failNext(...replies) {
      failures.push(...replies);
    },
    waitFor(test, what = "a matching mail", timeoutMs = 20_000) {
      const found = received.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          const subjects = received.map((m) => m.mail.subject).join(" | ");
          reject(new Error(`the SMTP server did not receive ${what} in ${timeoutMs} ms (got: ${subjects})`));
        }, timeoutMs);
        const check = () => {
          const match = received.find(test);
          if (!match) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(match);
        };
        listeners.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
