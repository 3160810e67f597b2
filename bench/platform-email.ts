/**
 * Email round-trip latency: from a mail being appended to the IMAP inbox to the SMTP server
 * accepting the connection that carries the reply, through real imapflow (IDLE) and nodemailer,
 * a real gateway and a zero-latency model.
 *
 *   node --import tsx bench/platform-email.ts [samples]
 */
import { pathToFileURL } from "node:url";
import { ALICE, startEmailGateway } from "../test/fakes/email/gateway.js";
import { buildMail, startMailWorld } from "../test/fakes/email/mail-world.js";
import { percentile } from "./stats.js";

export async function measureEmail(
  samples = 20,
): Promise<{ platform: "email"; p50Ms: number; p95Ms: number; samples: number }> {
  const world = await startMailWorld({ idle: true });
  const { gw, email } = await startEmailGateway(world, { provider: { fallback: { text: "ok" } } });
  const timings: number[] = [];
  try {
    if (email().watching !== "idle") throw new Error(`the adapter is ${email().watching}, not idling`);
    for (let i = 0; i < samples; i++) {
      const { raw, messageId } = await buildMail({ from: ALICE, subject: `ping ${i}`, text: `ping ${i}` });
      const connections = world.smtp.connectedAt.length;
      const started = performance.now();
      world.imap.deliver(raw);
      // The whole reply arrives before the next sample, so samples do not overlap.
      await world.smtp.waitFor((m) => m.mail.inReplyTo === messageId, `the reply to ping ${i}`);
      const connectedAt = world.smtp.connectedAt[connections];
      if (connectedAt === undefined) throw new Error("the reply came without a new SMTP connection");
      timings.push(connectedAt - started);
    }
  } finally {
    await gw.close();
    await world.close();
  }
  return {
    platform: "email",
    p50Ms: Math.round(percentile(timings, 50) * 10) / 10,
    p95Ms: Math.round(percentile(timings, 95) * 10) / 10,
    samples: timings.length,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const samples = Number(process.argv[2] ?? 20);
  console.log(JSON.stringify(await measureEmail(samples)));
}
