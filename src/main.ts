import * as BunRuntime from "@effect/platform-bun/BunRuntime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppLive } from "./App.js"
import { describeStartupFailure } from "./Logging.js"

/** The service until SIGTERM or SIGINT; a start that fails says why in one line and exits 1. */
Layer.launch(AppLive).pipe(
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.void : Console.error(describeStartupFailure(cause))
  ),
  BunRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
