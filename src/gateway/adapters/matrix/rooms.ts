/**
 * What the adapter knows of each joined room, from the state `/sync` delivers: its name, who is
 * in it, whether it was opened as a direct chat, and whether it is encrypted. A room with exactly
 * two joined members, or one whose invite said `is_direct`, is a direct message.
 */
import type { JoinedRoomSync } from "./sync.js";

interface RoomFacts {
  name?: string;
  members: Set<string>;
  joinedCount?: number;
  direct: boolean;
  encrypted: boolean;
  /** The "encrypted rooms are not supported" line was logged. */
  warned: boolean;
}

const MAX_ROOMS = 10_000;

export class RoomDirectory {
  private readonly rooms = new Map<string, RoomFacts>();
  private readonly directInvites = new Set<string>();

  knows(roomId: string): boolean {
    return this.rooms.has(roomId);
  }

  /** An invite marked `is_direct`: the room is a DM once joined. */
  markDirect(roomId: string): void {
    this.directInvites.add(roomId);
    const room = this.rooms.get(roomId);
    if (room) room.direct = true;
  }

  /** Reads the room's summary and the state events of its state and timeline sections. */
  update(roomId: string, sync: JoinedRoomSync): void {
    let room = this.rooms.get(roomId);
    if (!room) {
      if (this.rooms.size >= MAX_ROOMS) this.rooms.clear();
      room = { members: new Set(), direct: this.directInvites.has(roomId), encrypted: false, warned: false };
      this.rooms.set(roomId, room);
    }
    const count = sync.summary?.["m.joined_member_count"];
    if (typeof count === "number") room.joinedCount = count;
    for (const event of [...(sync.state?.events ?? []), ...(sync.timeline?.events ?? [])]) {
      if (typeof event.state_key !== "string") continue;
      const content = event.content ?? {};
      if (event.type === "m.room.member") {
        if (content.membership === "join") room.members.add(event.state_key);
        else room.members.delete(event.state_key);
      } else if (event.type === "m.room.name" && typeof content.name === "string") {
        room.name = content.name;
      } else if (event.type === "m.room.encryption") {
        room.encrypted = true;
      }
    }
  }

  isDm(roomId: string): boolean {
    const room = this.rooms.get(roomId);
    if (!room) return this.directInvites.has(roomId);
    return room.direct || (room.joinedCount ?? room.members.size) === 2;
  }

  name(roomId: string): string | undefined {
    return this.rooms.get(roomId)?.name;
  }

  /** True the first time it is asked for a room: whether to log that its messages cannot be read. */
  firstEncryptedNotice(roomId: string): boolean {
    const room = this.rooms.get(roomId);
    if (!room || room.warned) return false;
    room.warned = true;
    return true;
  }
}
