/**
 * Outgoing mail: markdown made readable as plain text, reply subjects and threading headers,
 * and SMTP failures sorted into the ones a retry can fix and the ones it cannot.
 */
import { PlatformSendError } from "../../types.js";

const FENCE = /^\s*(```|~~~)/;

/**
 * Markdown as a plain-text mail shows it: links become `text (url)`, local images their alt
 * text and path; code blocks, lists and emphasis marks stay as they are (they read fine).
 */
export function markdownToPlainText(markdown: string): string {
  let inCode = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (FENCE.test(line)) {
        inCode = !inCode;
        return line;
      }
      if (inCode) return line;
      return line
        .replaceAll(/!\[([^\]\n]*)\]\(([^)\s]+)\)/g, (_whole, alt: string, url: string) =>
          alt ? `${alt} (${url})` : url,
        )
        .replaceAll(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_whole, text: string, url: string) =>
          text === url ? url : `${text} (${url})`,
        );
    })
    .join("\n");
}

/** "Re: <subject>", without piling up prefixes ("Re: Re:", "RE:", "AW:", "Fwd:" kept as is). */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  if (!trimmed) return "Re: your message";
  return /^(re|aw|sv)\s*:/i.test(trimmed) ? `Re: ${trimmed.replace(/^(re|aw|sv)\s*:\s*/i, "")}` : `Re: ${trimmed}`;
}

/** The References of a reply: the root and the most recent ids (servers reject huge headers). */
export function referencesFor(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  if (unique.length <= 20) return unique;
  return [unique[0] as string, ...unique.slice(-19)];
}

/** A Message-ID from the ledger's idempotency key, so a re-sent reply keeps the same id. */
export function outgoingMessageId(idempotencyKey: string | undefined, address: string): string {
  const domain = address.split("@")[1] ?? "localhost";
  const local = (idempotencyKey ?? `hermes-${Date.now()}-${Math.random().toString(36).slice(2)}`).replaceAll(
    /[^\w.-]/g,
    "_",
  );
  return `<${local}@${domain}>`;
}

const NETWORK_CODES = new Set([
  "ECONNECTION",
  "ETIMEDOUT",
  "ESOCKET",
  "EDNS",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/**
 * 4xx replies (try later) and network failures can pass; 5xx replies and a refused login
 * cannot. The server's reply text is kept: it says what to fix.
 */
export function smtpSendError(error: unknown): PlatformSendError {
  const failure = (typeof error === "object" && error !== null ? error : {}) as SmtpFailure;
  const reply = (failure.response ?? failure.message ?? String(error)).replaceAll(/\s+/g, " ").slice(0, 300);
  const status = failure.responseCode;
  if (failure.code === "EAUTH")
    return new PlatformSendError(
      `the SMTP server refused the login (${reply}); check EMAIL_PASSWORD (an app password where the provider requires one)`,
      { retryable: false },
    );
  if (status !== undefined && status >= 400 && status < 500)
    return new PlatformSendError(`the SMTP server asked to try later (${reply})`, { retryable: true });
  if (status !== undefined && status >= 500)
    return new PlatformSendError(`the SMTP server refused the mail (${reply})`, { retryable: false });
  if (failure.code && NETWORK_CODES.has(failure.code))
    return new PlatformSendError(`could not reach the SMTP server (${reply})`, { retryable: true });
  if (failure.code === "ETLS")
    return new PlatformSendError(`TLS with the SMTP server failed (${reply})`, { retryable: false });
  return new PlatformSendError(`sending mail failed (${reply})`, { retryable: true });
}
