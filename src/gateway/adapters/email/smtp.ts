/** The SMTP side: a nodemailer transport with the TLS rules of the settings. */
import { createTransport } from "nodemailer";
import type { EmailSettings } from "./settings.js";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  messageId: string;
  inReplyTo?: string | undefined;
  references?: string[] | undefined;
  attachments?: Array<{ path: string; filename: string; cid?: string }> | undefined;
  html?: string | undefined;
}

export function smtpTransport(settings: EmailSettings, timeoutMs?: number) {
  const server = settings.smtp;
  return createTransport({
    host: server.host,
    port: server.port,
    secure: server.implicitTls,
    requireTLS: !server.plain && !server.implicitTls,
    ignoreTLS: server.plain,
    auth: { user: settings.address, pass: settings.password },
    connectionTimeout: timeoutMs ?? 30_000,
    greetingTimeout: timeoutMs ?? 30_000,
    socketTimeout: 120_000,
  });
}

export type SmtpTransport = ReturnType<typeof smtpTransport>;

export async function sendMail(transport: SmtpTransport, from: string, mail: OutgoingMail): Promise<void> {
  await transport.sendMail({
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references?.length ? { references: mail.references } : {}),
    ...(mail.attachments?.length ? { attachments: mail.attachments } : {}),
    headers: { "Auto-Submitted": "auto-replied" },
  });
}
