/**
 * `hermes pairing list|approve|revoke|clear|admin`: the owner's side of DM pairing. A stranger
 * who messages the bot gets a code; approving the code lets that user talk to the agent.
 */
import type { Command } from "commander";
import type { GatewayStore } from "../../state/gateway-store.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

async function withStore<T>(body: (store: GatewayStore) => Promise<T>): Promise<T> {
  const { hermesHome } = await import("../../state/paths.js");
  const { openGatewayStore } = await import("../../state/gateway-store.js");
  const { storeLocation } = await import("../../state/store-target.js");
  const store = await openGatewayStore(await storeLocation(hermesHome()));
  try {
    return await body(store);
  } finally {
    store.close();
  }
}

const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);

export function registerPairingCommands(program: Command, io: CommandIo = processIo): void {
  const pairing = program.command("pairing").description("approve who may talk to the agent on messaging platforms");
  pairing
    .command("list")
    .description("pending pairing codes and approved users")
    .option("--platform <name>", "only this platform")
    .action(async (opts: { platform?: string }) => {
      await withStore(async (store) => {
        const pending = await store.pendingPairingRequests(opts.platform);
        const approved = await store.approvedUsers(opts.platform);
        io.out(pending.length ? "Waiting for approval:" : "No pairing codes are waiting.");
        for (const p of pending) {
          io.out(
            `  ${p.platform} ${p.code}  user ${p.userId}${p.userName ? ` (${p.userName})` : ""}  until ${when(p.expiresAt)}`,
          );
        }
        io.out(approved.length ? "Approved users:" : "No users approved by pairing.");
        for (const u of approved) {
          io.out(
            `  ${u.platform} ${u.userId}${u.userName ? ` (${u.userName})` : ""}${u.admin ? "  admin" : ""}  since ${when(u.approvedAt)}`,
          );
        }
      });
    });
  pairing
    .command("approve <platform> <code>")
    .description("let the user behind a pairing code talk to the agent")
    .option("--admin", "also make them the admin (admin-only commands such as /yolo)")
    .action(async (platform: string, code: string, opts: { admin?: boolean }) => {
      await withStore(async (store) => {
        const user = await store.approvePairingCode(platform, code.trim().toUpperCase(), {
          admin: opts.admin === true,
        });
        if (!user) {
          throw new UsageError(`no pending code ${code} on ${platform} (codes last one hour; see hermes pairing list)`);
        }
        io.out(
          `Approved ${platform} user ${user.userId}${user.userName ? ` (${user.userName})` : ""}${user.admin ? " as admin" : ""}.`,
        );
      });
    });
  pairing
    .command("admin <platform> <user-id>")
    .description("make an allowed user the admin")
    .action(async (platform: string, userId: string) => {
      await withStore(async (store) => {
        const existing = await store.approvedUser(platform, userId);
        await store.approveUser({ platform, userId, userName: existing?.userName ?? null, admin: true });
        io.out(`${platform} user ${userId} is now an admin.`);
      });
    });
  pairing
    .command("revoke <platform> <user-id>")
    .description("take back an approval")
    .action(async (platform: string, userId: string) => {
      await withStore(async (store) => {
        if (!(await store.revokeUser(platform, userId)))
          throw new UsageError(`${platform} user ${userId} was not approved`);
        io.out(`Revoked ${platform} user ${userId}.`);
      });
    });
  pairing
    .command("clear")
    .description("drop pending codes (with --approved, approved users too)")
    .option("--platform <name>", "only this platform")
    .option("--approved", "also remove approved users")
    .action(async (opts: { platform?: string; approved?: boolean }) => {
      await withStore(async (store) => {
        const removed = await store.clearPairing({
          ...(opts.platform ? { platform: opts.platform } : {}),
          approved: opts.approved === true,
        });
        io.out(`Removed ${removed} entr${removed === 1 ? "y" : "ies"}.`);
      });
    });
}
