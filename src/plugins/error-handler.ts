import { Elysia } from "elysia";
import { AppError } from "../lib/errors";
import { jsonError, validationDetails } from "../lib/http";
import { requestIdOf, type MethodsOf } from "./http-conventions";

/**
 * The one error path: our AppErrors, Elysia's validation/parse/not-found errors and anything
 * unexpected all leave as SPEC §8 bodies (a browser's unknown page: an HTML 404). Unexpected errors are logged, never echoed.
 */
export function errorHandler(log: (message: string, error?: unknown, fields?: { requestId?: string }) => void, htmlNotFound?: () => Response, methodsOf?: MethodsOf) {
  return new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error: thrown, set, request }) => {
    // Elysia wraps whatever a body parser throws in a ParseError; ours carry the real answer.
    const cause = (thrown as { cause?: unknown }).cause;
    const error = code === "PARSE" && cause instanceof AppError ? cause : thrown;
    if (error instanceof AppError) {
      return new Response(JSON.stringify(error.toBody()), {
        status: error.status,
        headers: { "content-type": "application/json", ...error.headers },
      });
    }
    switch (code) {
      case "VALIDATION": {
        const details = validationDetails(error);
        return jsonError(400, "VALIDATION_ERROR", `Invalid ${details.field}: ${details.message}`, details);
      }
      case "PARSE":
        return jsonError(400, "VALIDATION_ERROR", "The request body is not valid JSON", { field: "(body)" });
      case "NOT_FOUND": {
        const allowed = methodsOf?.(new URL(request.url).pathname);
        if (allowed) return jsonError(405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; allowed: ${allowed.join(", ")}`, { allow: allowed }, { allow: allowed.join(", ") });
        // A browser that asked for a page outside the JSON API gets the web face's 404 page.
        if (htmlNotFound && !new URL(request.url).pathname.startsWith("/api/") && request.headers.get("accept")?.includes("text/html")) return htmlNotFound();
        return jsonError(404, "NOT_FOUND", "No such route");
      }
      case "INVALID_COOKIE_SIGNATURE":
        return jsonError(400, "VALIDATION_ERROR", "Invalid cookie");
    }
    const declared = (error as unknown as { status?: unknown }).status;
    const status = typeof declared === "number" ? declared : 500;
    if (status === 413) return jsonError(413, "PAYLOAD_TOO_LARGE", "The request body is too large");
    if (status >= 400 && status < 500) return jsonError(status, "VALIDATION_ERROR", "Bad request");
    log(`unexpected error (request ${requestIdOf(request)}: ${request.method} ${new URL(request.url).pathname})`, error, { requestId: requestIdOf(request) });
    set.status = 500;
    return jsonError(500, "INTERNAL", "Something went wrong on our side");
  });
}
