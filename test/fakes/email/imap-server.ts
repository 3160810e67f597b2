/**
 * A real IMAP server on loopback (hoodiecrow, in memory) holding one mailbox. Tests put mail in
 * the inbox as a mail server would, read the flags the client set, and cut live connections.
 */
import { createRequire } from "node:module";
import type { AddressInfo, Server, Socket } from "node:net";

const require = createRequire(import.meta.url);

interface StoredMessage {
  uid: number;
  flags: string[];
  raw: string;
}

interface Hoodiecrow {
  server: Server;
  appendMessage(mailbox: string, flags: string[], internaldate: Date | false, raw: string): { message: StoredMessage };
  getMailbox(path: string): { messages: StoredMessage[] };
}

type HoodiecrowFactory = (options: Record<string, unknown>) => Hoodiecrow;

interface ImapConnection {
  state: string;
  socket: Socket | undefined;
  directNotifications: boolean;
  inputHandler: ((line: string) => void) | false;
  send(response: Record<string, unknown>, description: string, parsed: unknown, data: unknown): void;
  processNotifications(): void;
}

interface PluginHost {
  registerCapability(keyword: string): void;
  setCommandHandler(
    command: string,
    handler: (
      connection: ImapConnection,
      parsed: { tag: string; attributes?: unknown },
      data: unknown,
      done: () => void,
    ) => void,
  ): void;
}

/**
 * IDLE (RFC 2177) as hoodiecrow's own plugin speaks it, except that a connection that goes away
 * while idling does not leave a 30-minute timer behind (it would keep the test process alive).
 */
function idlePlugin(server: PluginHost): void {
  server.registerCapability("IDLE");
  server.setCommandHandler("IDLE", (connection, parsed, data, done) => {
    const reply = (command: string, text: string, description: string) =>
      connection.send(
        { tag: parsed.tag, command, attributes: [{ type: "TEXT", value: text }] },
        description,
        parsed,
        data,
      );
    if (connection.state === "Not Authenticated") {
      reply("NO", "Login first", "INVALID COMMAND");
      return done();
    }
    if (parsed.attributes) {
      reply("BAD", "Unexpected arguments to IDLE", "INVALID COMMAND");
      return done();
    }
    const socket = connection.socket;
    const expire = setTimeout(() => socket?.end(), 30 * 60_000);
    const stop = () => clearTimeout(expire);
    socket?.once("close", stop);
    connection.directNotifications = true;
    connection.inputHandler = (line) => {
      stop();
      socket?.off("close", stop);
      connection.inputHandler = false;
      if (line.toUpperCase() === "DONE") reply("OK", "IDLE terminated", "IDLE");
      else reply("BAD", "Invalid Idle continuation", "INVALID IDLE");
    };
    if (socket && !socket.destroyed) socket.write("+ idling\r\n");
    connection.processNotifications();
    return done();
  });
}

export interface FakeImapOptions {
  user: string;
  password: string;
  /** Offer IDLE (default true); without it the client has to poll. */
  idle?: boolean;
}

export interface FakeImap {
  host: string;
  port: number;
  /** Appends a raw mail to INBOX (as delivery would); returns its UID. */
  deliver(raw: string | Buffer): number;
  /** Every mail in INBOX with its flags. */
  messages(): StoredMessage[];
  /** Whether the mail with this Message-ID carries \Seen. */
  seen(messageId: string): boolean;
  /** Clears \Seen on the mail with this Message-ID (as another mail client could). */
  markUnseen(messageId: string): void;
  /** Connections the server has accepted so far. */
  readonly connectionCount: number;
  /** Open connections right now. */
  readonly openConnections: number;
  /** Destroys every open connection (a network failure, a server restart). */
  dropConnections(): void;
  close(): Promise<void>;
}

export function messageIdOf(raw: string): string | undefined {
  return /^Message-ID:\s*(<[^>\r\n]+>)/im.exec(raw)?.[1];
}

export async function startFakeImap(options: FakeImapOptions): Promise<FakeImap> {
  const hoodiecrow = require("hoodiecrow-imap") as HoodiecrowFactory;
  const imap = hoodiecrow({
    plugins: options.idle === false ? ["ID"] : [idlePlugin, "ID"],
    users: { [options.user]: { password: options.password } },
    storage: { INBOX: { messages: [] }, "": { separator: "/", folders: {} } },
  });
  const sockets = new Set<Socket>();
  let accepted = 0;
  imap.server.on("connection", (socket: Socket) => {
    accepted += 1;
    // As real servers do: replies are written in several pieces, which Nagle would hold back.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => imap.server.listen(0, "127.0.0.1", resolve));
  const port = (imap.server.address() as AddressInfo).port;
  const inbox = () => imap.getMailbox("INBOX").messages;
  return {
    host: "127.0.0.1",
    port,
    deliver(raw) {
      const text = typeof raw === "string" ? raw : raw.toString("binary");
      return imap.appendMessage("INBOX", [], false, text).message.uid;
    },
    messages: () => inbox().map((m) => ({ uid: m.uid, flags: [...m.flags], raw: m.raw })),
    seen(messageId) {
      const found = inbox().find((m) => messageIdOf(m.raw) === messageId);
      if (!found) throw new Error(`no mail ${messageId} in the fake inbox`);
      return found.flags.includes("\\Seen");
    },
    markUnseen(messageId) {
      const found = inbox().find((m) => messageIdOf(m.raw) === messageId);
      if (!found) throw new Error(`no mail ${messageId} in the fake inbox`);
      found.flags = found.flags.filter((flag) => flag !== "\\Seen");
    },
    get connectionCount() {
      return accepted;
    },
    get openConnections() {
      return sockets.size;
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => imap.server.close(() => resolve()));
    },
  };
}
