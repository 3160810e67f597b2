/**
 * Errors in OpenAI's shape, `{error: {message, type, param, code}}`, so official clients raise
 * their own typed errors (AuthenticationError, RateLimitError, ...) with our message.
 */

export interface ErrorFields {
  type?: string;
  param?: string | null;
  code?: string | null;
}

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** The `type` OpenAI itself sends for each status (a bad key is an invalid request there too). */
const TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  404: "invalid_request_error",
  409: "invalid_request_error",
  413: "invalid_request_error",
  429: "requests",
  502: "server_error",
  503: "server_error",
};

export function errorBody(status: number, message: string, fields: ErrorFields = {}): OpenAiErrorBody {
  return {
    error: {
      message,
      type: fields.type ?? TYPE_BY_STATUS[status] ?? (status >= 500 ? "server_error" : "invalid_request_error"),
      param: fields.param ?? null,
      code: fields.code ?? null,
    },
  };
}

/** Thrown by parsers and routes; the app turns it into the response. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly body: OpenAiErrorBody;
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    message: string,
    fields: ErrorFields & { headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.body = errorBody(status, message, fields);
    this.headers = fields.headers ?? {};
  }
}
