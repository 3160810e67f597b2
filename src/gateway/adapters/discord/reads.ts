/**
 * What the adapter reads from Discord's REST API on its own behalf (a channel's history, a
 * server member's roles), through a client of its own that gives up on a rate limit instead of
 * waiting it out: these reads only add context or check a role, and must not hold a message up.
 */
import { type APIGuildMember, type APIMessage, DiscordAPIError, REST, type RESTOptions, Routes } from "discord.js";
import type { MemberRoleLookup } from "./access.js";
import type { HistoryPage } from "./backfill.js";
import { toSendError } from "./errors.js";

const READ_TIMEOUT_MS = 5000;

export class DiscordReads {
  private readonly rest: REST;

  /** `options`: the adapter's REST options (API root, no retries of its own). */
  constructor(options: Partial<RESTOptions>, token: string) {
    this.rest = new REST({ ...options, timeout: READ_TIMEOUT_MS, rejectOnRateLimit: () => true }).setToken(token);
  }

  readonly historyPage: HistoryPage = async (channelId, before, limit, signal) => {
    const query = new URLSearchParams({ before, limit: String(limit) });
    return (await this.rest.get(Routes.channelMessages(channelId), { query, signal })) as APIMessage[];
  };

  readonly memberRoles: MemberRoleLookup = async (guildId, userId) => {
    try {
      const member = (await this.rest.get(Routes.guildMember(guildId, userId))) as APIGuildMember;
      return member.roles;
    } catch (error) {
      // Unknown Member (10007) or Unknown User (10013): not in the server. Anything else: Discord cannot say.
      if (error instanceof DiscordAPIError && error.status === 404 && (error.code === 10007 || error.code === 10013)) {
        return null;
      }
      throw toSendError(error, "looking up the server member");
    }
  };
}
