/**
 * A mail provider on loopback for the email adapter: an IMAP server holding the agent's inbox
 * and an SMTP server taking its replies, both with a login. `mail()` writes a message into the
 * inbox as someone's mail client would have sent it.
 */
import { randomUUID } from "node:crypto";
import MailComposer from "nodemailer/lib/mail-composer";
import { type FakeImap, startFakeImap } from "./imap-server.js";
import { type FakeSmtp, startFakeSmtp } from "./smtp-server.js";

export const AGENT_ADDRESS = "agent@example.test";
export const AGENT_PASSWORD = "app-password-123";

export interface IncomingMail {
  from: string;
  subject?: string;
  text?: string;
  html?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface MailWorld {
  imap: FakeImap;
  smtp: FakeSmtp;
  /** The EMAIL_* settings that point the adapter at these servers. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Builds the mail and appends it to the inbox; returns its Message-ID. */
  mail(mail: IncomingMail): Promise<string>;
  close(): Promise<void>;
}

export async function buildMail(mail: IncomingMail): Promise<{ raw: Buffer; messageId: string }> {
  const messageId = mail.messageId ?? `<${randomUUID()}@client.example.test>`;
  const raw = await new MailComposer({
    from: mail.from,
    to: AGENT_ADDRESS,
    subject: mail.subject ?? "Hello",
    text: mail.text ?? "",
    ...(mail.html ? { html: mail.html } : {}),
    messageId,
    date: new Date(),
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references ? { references: mail.references } : {}),
    ...(mail.headers ? { headers: mail.headers } : {}),
    ...(mail.attachments ? { attachments: mail.attachments } : {}),
  })
    .compile()
    .build();
  return { raw, messageId };
}

export async function startMailWorld(options: { idle?: boolean } = {}): Promise<MailWorld> {
  const imap = await startFakeImap({ user: AGENT_ADDRESS, password: AGENT_PASSWORD, idle: options.idle ?? true });
  const smtp = await startFakeSmtp({ user: AGENT_ADDRESS, password: AGENT_PASSWORD });
  return {
    imap,
    smtp,
    env: (extra = {}) => ({
      EMAIL_ADDRESS: AGENT_ADDRESS,
      EMAIL_PASSWORD: AGENT_PASSWORD,
      EMAIL_IMAP_HOST: imap.host,
      EMAIL_IMAP_PORT: String(imap.port),
      EMAIL_SMTP_HOST: smtp.host,
      EMAIL_SMTP_PORT: String(smtp.port),
      EMAIL_INSECURE_NO_TLS: "true",
      ...extra,
    }),
    async mail(mail) {
      const { raw, messageId } = await buildMail(mail);
      imap.deliver(raw);
      return messageId;
    },
    async close() {
      await Promise.all([imap.close(), smtp.close()]);
    },
  };
}
