/**
 * Password login (MATRIX_USER_ID and MATRIX_PASSWORD instead of an access token): the adapter
 * logs in when it connects and keeps the session it got in `$HERMES_HOME/gateway/matrix-session.json`
 * (mode 0600), so a restart reuses that session, and the same device, instead of adding a device
 * to the account every time. A saved session the homeserver no longer accepts is replaced by a new
 * login on the same device. A password the homeserver refused is not tried again by this process:
 * another attempt could only fail the same way, and count towards the account's lockout.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../../../util/atomic-write.js";
import { MatrixHttpError } from "./errors.js";
import { CLIENT_V3, type MatrixRest } from "./rest.js";

export interface PasswordLogin {
  /** `@bot:example.org`, or only the local part (`bot`). */
  userId: string;
  password: string;
}

export interface MatrixSession {
  accessToken: string;
  deviceId: string;
  userId: string;
}

/** The name a new device gets in the account's session list. */
const DEVICE_NAME = "Hermes Agent";

export class MatrixSessionStore {
  readonly path: string;

  constructor(
    home: string,
    private readonly owner: string,
  ) {
    this.path = join(home, "gateway", "matrix-session.json");
  }

  load(): MatrixSession | undefined {
    if (!existsSync(this.path)) return undefined;
    try {
      const saved = JSON.parse(readFileSync(this.path, "utf8")) as Record<string, unknown>;
      const { owner, accessToken, deviceId, userId } = saved;
      if (owner !== this.owner || typeof accessToken !== "string" || !accessToken) return undefined;
      if (typeof deviceId !== "string" || typeof userId !== "string") return undefined;
      return { accessToken, deviceId, userId };
    } catch {
      return undefined;
    }
  }

  save(session: MatrixSession): void {
    atomicWriteFile(this.path, `${JSON.stringify({ owner: this.owner, ...session, savedAt: Date.now() })}\n`, {
      mode: 0o600,
    });
  }
}

/** Logs in with the password, on `deviceId` when one is known (the homeserver then replaces its old session). */
export async function logIn(rest: MatrixRest, login: PasswordLogin, deviceId?: string): Promise<MatrixSession> {
  let reply: { access_token?: unknown; device_id?: unknown; user_id?: unknown };
  try {
    reply = await rest.post(
      `${CLIENT_V3}/login`,
      {
        type: "m.login.password",
        identifier: { type: "m.id.user", user: login.userId },
        password: login.password,
        initial_device_display_name: DEVICE_NAME,
        ...(deviceId ? { device_id: deviceId } : {}),
      },
      { anonymous: true },
    );
  } catch (error) {
    if (error instanceof MatrixHttpError && (error.status === 403 || error.status === 401)) {
      throw new PasswordRefused(
        `the Matrix homeserver refused the password of ${login.userId} (HTTP ${error.status} ${error.errcode ?? ""}): ` +
          "check MATRIX_USER_ID and MATRIX_PASSWORD, or set MATRIX_ACCESS_TOKEN instead",
      );
    }
    throw error;
  }
  const { access_token: accessToken, device_id: device, user_id: userId } = reply;
  if (typeof accessToken !== "string" || !accessToken) {
    throw new Error(
      "the Matrix homeserver's login answer held no access token; is MATRIX_HOMESERVER a Matrix homeserver?",
    );
  }
  return {
    accessToken,
    deviceId: typeof device === "string" ? device : (deviceId ?? ""),
    userId: typeof userId === "string" ? userId : login.userId,
  };
}

/** Puts a working access token on the client at each connect: the saved session's, else a new login's. */
export class PasswordSignIn {
  private readonly sessions: MatrixSessionStore;
  /** Set once the homeserver refused the password: later connects fail without asking again. */
  private refused: PasswordRefused | undefined;

  constructor(
    private readonly rest: MatrixRest,
    private readonly login: PasswordLogin,
    home: string,
    homeserver: string,
    private readonly log: (line: string) => void,
  ) {
    this.sessions = new MatrixSessionStore(home, `${homeserver} ${login.userId}`);
  }

  async signIn(): Promise<void> {
    if (this.refused) throw this.refused;
    const saved = this.sessions.load();
    if (saved) {
      this.rest.setToken(saved.accessToken);
      try {
        await this.rest.get(`${CLIENT_V3}/account/whoami`);
        return;
      } catch (error) {
        if (!(error instanceof MatrixHttpError && error.status === 401)) throw error;
        this.log("matrix: the saved login session is no longer accepted; logging in again");
      }
    }
    let session: MatrixSession;
    try {
      session = await logIn(this.rest, this.login, saved?.deviceId);
    } catch (error) {
      if (error instanceof PasswordRefused) this.refused = error;
      throw error;
    }
    this.rest.setToken(session.accessToken);
    try {
      this.sessions.save(session);
    } catch (error) {
      this.log(`matrix: could not save the login session: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.log(`matrix: logged in as ${session.userId} (device ${session.deviceId || "unknown"})`);
  }
}

/** The homeserver refused the password: a retry with the same one cannot succeed. */
export class PasswordRefused extends Error {
  override name = "PasswordRefused";
}
