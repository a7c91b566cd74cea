/** Error codes of SPEC §8, plus the specific conflict codes. */
export type ErrorCode =
  | "VALIDATION_ERROR"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "INSUFFICIENT_BALANCE"
  | "CONFLICT"
  | "EMAIL_TAKEN"
  | "BOT_NAME_TAKEN"
  | "BOT_ALREADY_SEATED"
  | "BOT_SEATED"
  | "BOT_RETIRED"
  | "BUILT_IN_BOT"
  | "BOT_NOT_HOSTED"
  | "BOT_NAME_RESERVED"
  | "TABLE_FULL"
  | "TABLE_NOT_JOINABLE"
  | "TABLE_NOT_WAITING"
  | "SEEDED_TABLE_PRIVATE"
  | "DUPLICATE_TABLE_PRIVATE"
  | "REMOTE_BOT_AT_DUPLICATE_TABLE"
  | "TABLE_HOST_UNAVAILABLE"
  | "TOO_MANY_SPECTATORS"
  | "TOO_MANY_BOTS"
  | "TOO_MANY_OPEN_TABLES"
  | "TOO_MANY_VERSIONS"
  | "TOO_MANY_HOSTED_SEATS"
  | "FAUCET_COOLDOWN"
  | "RATE_LIMITED"
  | "IDEMPOTENCY_KEY_IN_USE"
  | "IDEMPOTENCY_KEY_REUSED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "SERVICE_BUSY"
  | "DATABASE_UNAVAILABLE"
  | "REQUEST_TIMEOUT"
  | "INTERNAL"
  | "COMPETITION_TABLE"
  | "NOT_OPEN_TO_CHALLENGES"
  | "CHALLENGE_BUY_IN_TOO_HIGH"
  | "HOUSE_TAKES_NO_CHALLENGES"
  | "OPPONENT_CANNOT_PLAY"
  | "TOURNAMENT_NOT_REGISTERING"
  | "TOURNAMENT_FULL"
  | "DEVELOPER_ALREADY_ENTERED"
  | "BOT_NOT_ENTERED"
  | "TOO_MANY_OPEN_TOURNAMENTS";

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

/** Our own errors: thrown anywhere, turned into a SPEC §8 body by the one root error handler. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
    /** Extra top-level fields merged into the body next to `error` (e.g. a faucet claim result). */
    readonly bodyFields?: Record<string, unknown>,
  ) {
    super(message);
  }

  toBody(): ErrorBody & Record<string, unknown> {
    const error: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { ...this.bodyFields, error };
  }
}

export const errors = {
  validation: (message: string, details?: unknown) => new AppError(400, "VALIDATION_ERROR", message, details),
  unauthorized: (message = "Missing or invalid credentials") => new AppError(401, "UNAUTHORIZED", message),
  forbidden: (message: string, code: ErrorCode = "FORBIDDEN") => new AppError(403, code, message),
  notFound: (what: string) => new AppError(404, "NOT_FOUND", `${what} not found`),
  insufficientBalance: (balance: number, needed: number) =>
    new AppError(402, "INSUFFICIENT_BALANCE", `Balance ${balance} is below the ${needed} needed`, {
      balance,
      needed,
    }),
  conflict: (code: ErrorCode, message: string, details?: unknown) => new AppError(409, code, message, details),
};

export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
