/**
 * Whom Discord vouches for when no allowlist or pairing names them (the core asks last):
 * - other bots let in by DISCORD_ALLOW_BOTS (`none`, the default, | `mentions` | `all`);
 * - in servers, members holding a role listed in DISCORD_ALLOWED_ROLES (read from the member
 *   data Discord sends with each message or button press);
 * - in DMs, with `discord.dm_role_auth_guild` set, senders holding such a role on that server,
 *   looked up with GET /guilds/{guild}/members/{user} and kept five minutes. A 404 means not a
 *   member; any other failure (missing access, rate limit, outage) refuses, with a log line.
 */
import type { APIInteractionGuildMember, GuildMember } from "discord.js";
import type { HermesConfig } from "../../../state/config-schema.js";
import type { InboundMessage } from "../../types.js";

export const ALLOW_BOTS_MODES = ["none", "mentions", "all"] as const;
export type AllowBots = (typeof ALLOW_BOTS_MODES)[number];

export interface AccessSettings {
  allowBots: AllowBots;
  allowedRoles: Set<string>;
  /** The server whose roles admit DM senders; "" for none. */
  dmRoleGuild: string;
}

/** No other bots, no role allowlist. */
export const NO_EXTRA_ACCESS: AccessSettings = { allowBots: "none", allowedRoles: new Set(), dmRoleGuild: "" };

/** A member's role ids, or null when the user is not a member; throws when Discord cannot say. */
export type MemberRoleLookup = (guildId: string, userId: string) => Promise<string[] | null>;

const ROLE_CACHE_MS = 5 * 60_000;
const REMEMBERED_LOOKUPS = 2000;

/** The role ids a server member holds, from a message's or a button press's member data. */
export function roleIdsOf(member: GuildMember | APIInteractionGuildMember | null): string[] {
  if (!member) return [];
  return Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
}

export function accessFrom(env: Record<string, string | undefined>, config: HermesConfig): AccessSettings {
  const allowBots = (env.DISCORD_ALLOW_BOTS?.trim().toLowerCase() || "none") as AllowBots;
  if (!ALLOW_BOTS_MODES.includes(allowBots)) {
    throw new Error(
      `DISCORD_ALLOW_BOTS is "${env.DISCORD_ALLOW_BOTS}"; set it to none (ignore other bots), mentions (only when they mention this bot) or all`,
    );
  }
  const roles = (env.DISCORD_ALLOWED_ROLES ?? "").split(/[,\s]+/).filter(Boolean);
  const notIds = roles.filter((role) => !/^\d+$/.test(role));
  if (notIds.length > 0) {
    throw new Error(
      `DISCORD_ALLOWED_ROLES takes role ids (digits), not ${notIds.map((r) => `"${r}"`).join(", ")}: in Discord, Server Settings → Roles → right-click a role → Copy Role ID`,
    );
  }
  return { allowBots, allowedRoles: new Set(roles), dmRoleGuild: config.discord.dm_role_auth_guild };
}

export class DiscordAccess {
  private readonly dmRoles = new Map<string, { roles: string[] | null; until: number }>();

  constructor(
    readonly settings: AccessSettings,
    private readonly lookup: MemberRoleLookup,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether another bot's message goes on to the mention and channel rules at all. */
  letsBotIn(addressed: boolean): boolean {
    return this.settings.allowBots === "all" || (this.settings.allowBots === "mentions" && addressed);
  }

  async vouchFor(message: InboundMessage): Promise<string | undefined> {
    const sender = message.senderFacts;
    if (sender?.bot && this.settings.allowBots !== "none") return `DISCORD_ALLOW_BOTS=${this.settings.allowBots}`;
    if (this.settings.allowedRoles.size === 0) return undefined;
    if (message.chatType !== "dm") {
      return sender && this.holdsAllowedRole(sender.roles) ? "a role in DISCORD_ALLOWED_ROLES" : undefined;
    }
    const guild = this.settings.dmRoleGuild;
    if (!guild) return undefined;
    const roles = await this.memberRoles(guild, message.userId);
    return roles && this.holdsAllowedRole(roles)
      ? `a role in DISCORD_ALLOWED_ROLES on server ${guild} (discord.dm_role_auth_guild)`
      : undefined;
  }

  private holdsAllowedRole(roles: string[]): boolean {
    return roles.some((role) => this.settings.allowedRoles.has(role));
  }

  private async memberRoles(guild: string, userId: string): Promise<string[] | null> {
    const cached = this.dmRoles.get(userId);
    if (cached && cached.until > this.now()) return cached.roles;
    try {
      const roles = await this.lookup(guild, userId);
      this.dmRoles.delete(userId);
      this.dmRoles.set(userId, { roles, until: this.now() + ROLE_CACHE_MS });
      if (this.dmRoles.size > REMEMBERED_LOOKUPS) this.dmRoles.delete(this.dmRoles.keys().next().value as string);
      return roles;
    } catch (error) {
      // Not cached: the next message asks again.
      const why = error instanceof Error ? error.message : String(error);
      this.log(`discord: could not check user ${userId}'s roles on server ${guild}, so their DM is refused: ${why}`);
      return null;
    }
  }
}
